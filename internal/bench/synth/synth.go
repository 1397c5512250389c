// Package synth generates deterministic, realistic-looking facts for
// benchmarks and scale tests: short sentences about people, services, files
// and tickets in English and Russian, with entities the extractor finds.
package synth

import (
	"fmt"
	"math/rand/v2"
	"strings"

	"github.com/holomem/holomem"
)

var (
	people   = []string{"Alice", "Bob", "Carol", "Dmitry", "Elena", "Farid", "Grace", "Hiro", "Ivan", "Julia", "Kenji", "Lena", "Marco", "Nadia", "Oleg", "Priya", "Quinn", "Rosa", "Sergei", "Tanya"}
	services = []string{"nginx", "Postgres", "Redis", "Kafka", "Grafana", "Prometheus", "Vault", "Consul", "Jenkins", "Terraform", "Ansible", "Docker", "Kubernetes", "MinIO", "Caddy", "Traefik", "Sentry", "ClickHouse", "RabbitMQ", "Elastic"}
	verbs    = []string{"prefers", "deploys", "configures", "maintains", "reviews", "migrated", "monitors", "restarts", "upgraded", "documented", "benchmarks", "rolls back", "owns", "debugs", "tunes"}
	objects  = []string{"the staging cluster", "the release pipeline", "dark mode in the editor", "the backup schedule", "connection pooling", "the TLS certificates", "the cache eviction policy", "the nightly build", "the login flow", "rate limiting", "the search index", "log rotation", "the deploy script", "feature flags", "the on-call rotation"}
	details  = []string{"every Monday", "after each release", "with a 30 second timeout", "on port 8443", "behind the VPN", "using blue-green deploys", "with three replicas", "in the eu-west region", "before the quarterly audit", "since the outage in March", "with retries and jitter", "for the mobile clients", "as agreed in the design review", "to cut p99 latency", "without downtime"}
	ruSubj   = []string{"Команда", "Сервер", "Кластер", "Проект", "Релиз"}
	ruRest   = []string{"использует кэш в России", "переехал на новую базу данных", "обновляет сертификаты каждую неделю", "хранит резервные копии в Москве", "мониторит задержки запросов", "собирается ночью без простоя"}
	paths    = []string{"deploy/nginx.yml", "cmd/server/main.go", "config/app.toml", "scripts/backup.sh", "docs/runbook.md", "internal/cache/lru.go"}
)

// Fact returns the i-th synthetic fact of a stream seeded by seed. The same
// (seed, i) always gives the same content; content is unique per i.
func Fact(seed uint64, i int) *holomem.Fact {
	r := rand.New(rand.NewPCG(seed, uint64(i)))
	pick := func(s []string) string { return s[r.IntN(len(s))] }
	var b strings.Builder
	switch r.IntN(10) {
	case 0:
		fmt.Fprintf(&b, "%s %s; см. задачу #%d.", pick(ruSubj), pick(ruRest), 100+r.IntN(9000))
	case 1, 2:
		fmt.Fprintf(&b, "%s %s %s, see %s (ticket #%d).", pick(people), pick(verbs), pick(services), pick(paths), 100+r.IntN(9000))
	default:
		fmt.Fprintf(&b, "%s %s %s for %s %s.", pick(people), pick(verbs), pick(objects), pick(services), pick(details))
	}
	fmt.Fprintf(&b, " [n%d]", i)
	cats := []string{"project", "user_pref", "tool", "general"}
	return &holomem.Fact{
		Content:  b.String(),
		Category: cats[r.IntN(len(cats))],
		Tags:     []string{strings.ToLower(pick(services))},
		Source:   "synth",
	}
}

// Query returns the i-th synthetic query: a few words a user might type
// about the facts of the same seed.
func Query(seed uint64, i int) string {
	r := rand.New(rand.NewPCG(seed^0x9e3779b97f4a7c15, uint64(i)))
	pick := func(s []string) string { return s[r.IntN(len(s))] }
	switch r.IntN(4) {
	case 0:
		return pick(people) + " " + pick(services)
	case 1:
		return "who " + pick(verbs) + " " + pick(objects)
	case 2:
		return pick(services) + " " + pick(details)
	default:
		return "сервер в России"
	}
}

// People are the person entities facts mention (for probe/reason benchmarks).
func People() []string { return append([]string(nil), people...) }

// Services are the service entities facts mention.
func Services() []string { return append([]string(nil), services...) }
