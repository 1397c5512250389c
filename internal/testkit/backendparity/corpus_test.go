package backendparity

import (
	"fmt"
	"math/rand/v2"
	"strings"
	"time"

	"github.com/holomem/holomem"
)

// Vocabulary of the generated corpus: what an engineering team's agent
// writes down, in English and Russian.
var (
	people   = []string{"Alice", "Bob", "Carol", "Dmitri", "Елена", "Алексей", "Маша", "Иван Петров", "Sam O'Neil", "Priya"}
	peopleRU = []string{"Алексею", "Алексея", "Машей", "Маше", "Елены", "Ивану Петрову"}
	teams    = []string{"Platform team", "SRE", "Команда Платформы", "Billing squad", "Data Infra"}
	products = []string{"Orion", "Atlas", "Helix", "Полярис", "Northwind"}
	tools    = []string{"nginx", "kafka", "terraform", "kubectl", "redis", "postgres", "grafana", "prometheus", "helm", "ansible", "envoy", "clickhouse"}
	rare     = []string{"flakiness", "idempotency", "backpressure", "sharding", "canary", "rollout", "hotfix", "runbook", "failover", "debounce", "тикет", "релиза", "деплой", "откат", "инцидент", "алерт", "шардинг"}
	paths    = []string{"cmd/server/main.go", "deploy/nginx/nginx.conf", "infra/terraform/main.tf", "docs/runbook.md", "internal/kafka/consumer.go", "/etc/redis/redis.conf", "charts/helix/values.yaml"}
	commands = []string{"kubectl rollout restart deploy/api", "terraform plan -out=tfplan", "helm upgrade --install helix ./charts/helix", "go test ./... -run TestSync", "docker-compose up -d", "make release VERSION=2.3.1", "ansible-playbook site.yml --check"}
	versions = []string{"2.3", "2.3.1", "v1.14.0", "3.0-rc1", "0.9.7"}
	cats     = []string{"", "decision", "incident", "howto", "note"}
	tagPool  = []string{"ops", "release", "infra", "postmortem", "ru", "kafka", "nginx", "on-call", "security"}
)

// English and Russian sentence templates. {p} person, {pr} a Russian
// person in a declined form, {t} team, {x} product, {tool} a lower-case
// tool, {rare} a rare lower-case word, {path}, {cmd}, {v} version, {n}
// an issue number. Many open with a capitalised common word, which is a
// name only when the namespace already knows it.
var templates = []string{
	"{p} deployed {x} {v} behind {tool} on Friday.",
	"Release notes say {tool} {v} fixes the {rare} bug in {x}.",
	"Release {v} of {x} shipped; {p} wrote the changelog.",
	"Команда выпустила релиз {x} {v}, {tool} обновлён.",
	"Релиз {v} вышел, {pr} поручили проверить {tool}.",
	"Команда {t} разбирает {rare} после инцидента #{n}.",
	"Deploy notes: run `{cmd}` before touching {path}.",
	"{t} owns {path}; ask {p} about {rare}.",
	"Issue #{n}: {tool} drops connections under {rare}, see {path}.",
	"Fixed in PR #{n} by {p}: {x} now retries {tool} writes.",
	"Sometimes {tool} needs a restart after {rare}; {p} filed #{n}.",
	"Runbook: `{cmd}` then check {tool} dashboards.",
	"Инцидент #{n}: {tool} упал, {pr} откатил {x} до {v}.",
	"Деплой {x} через {tool} занял час, виноват {rare}.",
	"Meeting: {p} and {p2} agreed to move {x} off {tool}.",
	"We use {tool} and {tool2} for {x}; {rare} is still open.",
	"Config lives in {path}, owned by {t}.",
	"Команда решила: {tool} остаётся, {tool2} убираем к релизу {v}.",
	"Note that {rare} in {tool} shows up only with {tool2}.",
	"Alerts from {tool} go to {t}; escalate to {p}.",
	"Postmortem for #{n}: {rare} in {x}, action items for {pr}.",
	"Релиз {x} {v} отложен: {rare} в {tool}.",
	"The {tool} upgrade to {v} broke {path} for {t}.",
	"{x} {v} migration checklist lives in {path}.",
	"Сегодня {pr} настроил {tool} для {x}.",
	"Today {p} paired with {p2} on the {rare} problem in {tool}.",
}

// corpus returns n facts generated from seed; the same seed gives the same
// facts. About one in forty repeats an earlier fact's content (a
// duplicate the stores must find), some have external keys, tags and
// categories, and two namespaces are used.
func corpus(seed uint64, n int) []*holomem.Fact {
	r := rand.New(rand.NewPCG(seed, seed^0x9e3779b97f4a7c15))
	pick := func(xs []string) string { return xs[r.IntN(len(xs))] }
	// Zipf-like choice so that some tools and rare words recur often and
	// others only once or twice, as in a real memory.
	skewed := func(xs []string) string {
		i := int(float64(len(xs)) * r.Float64() * r.Float64())
		return xs[i]
	}
	base := time.Date(2025, 1, 2, 3, 4, 5, 0, time.UTC)
	var out []*holomem.Fact
	for i := range n {
		var content string
		if i > 10 && r.IntN(40) == 0 {
			content = out[r.IntN(len(out))].Content
		} else {
			tool := skewed(tools)
			tool2 := pick(tools)
			p, p2 := pick(people), pick(people)
			content = strings.NewReplacer(
				"{p2}", p2, "{pr}", pick(peopleRU), "{p}", p, "{t}", pick(teams), "{x}", pick(products),
				"{tool2}", tool2, "{tool}", tool, "{rare}", skewed(rare), "{path}", pick(paths),
				"{cmd}", pick(commands), "{v}", pick(versions), "{n}", fmt.Sprint(100+r.IntN(400)),
			).Replace(pick(templates))
			if r.IntN(5) == 0 { // a second sentence
				content += " " + strings.NewReplacer("{p2}", p, "{pr}", pick(peopleRU), "{p}", p2, "{t}", pick(teams),
					"{x}", pick(products), "{tool2}", tool, "{tool}", tool2, "{rare}", skewed(rare), "{path}", pick(paths),
					"{cmd}", pick(commands), "{v}", pick(versions), "{n}", fmt.Sprint(100+r.IntN(400)),
				).Replace(pick(templates))
			}
		}
		f := &holomem.Fact{
			Namespace: []string{"default", "default", "default", "team"}[r.IntN(4)],
			Content:   content,
			Category:  pick(cats),
			Source:    "parity",
			CreatedAt: base.Add(time.Duration(i) * time.Minute),
			Trust:     []float64{0, 0.5, 0.8}[r.IntN(3)],
		}
		for range r.IntN(3) {
			if t := pick(tagPool); !containsString(f.Tags, t) {
				f.Tags = append(f.Tags, t)
			}
		}
		if r.IntN(15) == 0 {
			f.ExternalKey = fmt.Sprintf("issue:%d", 100+r.IntN(400))
		}
		out = append(out, f)
	}
	return out
}

func containsString(xs []string, s string) bool {
	for _, x := range xs {
		if x == s {
			return true
		}
	}
	return false
}
