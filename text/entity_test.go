package text_test

import (
	"fmt"
	"strings"
	"testing"
	"unicode"
	"unicode/utf8"

	"github.com/holomem/holomem/text"
)

// ents renders entities compactly for comparison: "kind:Name" or
// "alias:Name=Alias1|Alias2".
func ents(es []text.Entity) []string {
	var out []string
	for _, e := range es {
		s := string(e.Kind) + ":" + e.Name
		if len(e.Aliases) > 0 {
			s += "=" + strings.Join(e.Aliases, "|")
		}
		out = append(out, s)
	}
	return out
}

func TestEntities(t *testing.T) {
	for _, tt := range []struct {
		name string
		in   string
		want []string
	}{
		{"Empty", "", nil},
		{"Lowercase", "nothing to see here.", nil},
		{"ProperSingle", "I met Alice yesterday.", []string{"proper:Alice"}},
		{"ProperPhrase", "Alice Smith moved to New York last year.", []string{"proper:Alice Smith", "proper:New York"}},
		{"ProperSentenceStart", "The server is down. We restarted it. This works.", nil},
		{"ProperAfterStopword", "The Beatles played in Hamburg.", []string{"proper:Beatles", "proper:Hamburg"}},
		{"ProperParticle", "She works at Bank of America.", []string{"proper:Bank of America"}},
		{"ProperPossessive", "Bob's laptop broke.", []string{"proper:Bob"}},
		{"ProperAcronym", "We deploy to AWS with Terraform.", []string{"proper:AWS", "proper:Terraform"}},
		{"ProperNoJoinAcrossPunct", "Alice, Bob. Carol", []string{"proper:Alice", "proper:Bob", "proper:Carol"}},
		{"ProperRu", "Это важно: Иван Петров живёт в Санкт-Петербурге.", []string{"proper:Иван Петров", "proper:Санкт-Петербурге"}},
		{"ProperRuStarter", "Мы используем Москву как пример. Это всё.", []string{"proper:Москву"}},
		{"ProperDedupe", "alice met ALICE and Alice", []string{"proper:ALICE"}},
		{"QuotedEn", `She said "deploy on Fridays" twice.`, []string{"quoted:deploy on Fridays", "proper:Fridays"}},
		{"QuotedRu", "Проект «Голопамять» запущен.", []string{"quoted:Голопамять"}},
		{"ProperSentenceStartNonStopword", "Ansible runs it. Deploy it.", []string{"proper:Ansible"}},
		{"PathModule", "import modernc.org/sqlite now", []string{"path:modernc.org/sqlite"}},
		{"QuotedCurly", "Use the “blue-green” strategy and 'canary' too.", []string{"quoted:blue-green", "quoted:canary"}},
		{"QuotedTooLong", `"` + strings.Repeat("x", 61) + `"`, nil},
		{"QuotedApostrophe", "don't do it, it's Bob's", []string{"proper:Bob"}},
		{"AliasAka", "Robert aka Bob runs ops.", []string{"alias:Robert=Bob"}},
		{"AliasAKADots", "Kubernetes a.k.a. K8s is everywhere.", []string{"alias:Kubernetes=K8s"}},
		{"AliasParen", "Holographic Memory (aka HoloMem) stores facts.", []string{"alias:Holographic Memory=HoloMem"}},
		{"AliasMerge", "Alice joined. Alice aka Ally left.", []string{"alias:Alice=Ally"}},
		{"AliasCode", "holo_mem aka hm, x aka `y`", []string{"alias:holo_mem=hm", "alias:x=y"}},
		{"AliasRu", "Пётр aka Петя пришёл.", []string{"alias:Пётр=Петя"}},
		{"Tag", "ship it #release #v2 #проект", []string{"tag:#release", "tag:#v2", "tag:#проект"}},
		{"TagNotCSharp", "C# and a#b", nil},
		{"Issue", "fixes #123 and GH-45, see owner/repo#7.", []string{"issue:#123", "issue:#45", "issue:owner/repo#7"}},
		{"IssueRu", "Исправлено в #12, см. также holomem/holomem#7 и GH-3.", []string{"issue:#12", "issue:holomem/holomem#7", "issue:#3"}},
		{"IssueCommitPrefix", "fix(module #4409): handle nil", []string{"issue:#4409"}},
		{"IssueURL", "see https://github.com/holomem/holomem/pull/12 and https://example.com/x_y", []string{"issue:holomem/holomem#12"}},
		{"IssueHTMLEntity", "&#123; is a brace", nil},
		{"IssueShortCase", "gh-7, Gh-8 and gH-09 are fixed", []string{"issue:#7", "issue:#8", "issue:#9"}},
		{"URLCase", "WWW.Example.com/a_b HTTPS://github.com/o/r/issues/3 Www.x.y/c_d", []string{"issue:o/r#3"}},
		{"Path", "edit cmd/holomem/main.go and ./x.yaml, then /etc/nginx/nginx.conf and README.md.", []string{"path:cmd/holomem/main.go", "path:./x.yaml", "path:/etc/nginx/nginx.conf", "path:README.md"}},
		{"PathNot", "and/or 1/2 e.g. Node.js example.com", []string{"proper:Node"}},
		{"PathDotfile", "copy .env.example to .env", []string{"path:.env"}},
		{"PathRu", "Файл config/app.toml лежит в ~/holomem", []string{"path:config/app.toml", "path:~/holomem"}},
		{"Identifier", "call http.ListenAndServe, max_retries, parseConfig and foo() with os.Open", []string{"identifier:http.ListenAndServe", "identifier:max_retries", "identifier:parseConfig", "identifier:foo()", "identifier:os.Open"}},
		{"IdentifierCall", `use fmt.Println("x") or json.dumps(data)`, []string{"identifier:fmt.Println()", "identifier:json.dumps()"}},
		{"IdentifierNotCommit", "feat(api): add endpoint", nil},
		{"IdentifierPascal", "The HoloMem struct uses FactID.", []string{"identifier:HoloMem", "identifier:FactID"}},
		{"IdentifierCodeSpan", "run `holomem` with `--json` and `cmd/x.go`", []string{"identifier:holomem", "identifier:--json", "path:cmd/x.go"}},
		{"IdentifierRu", "Функция parse_config читает файл.", []string{"identifier:parse_config"}},
		{"Mixed", `Alice (aka "Al") fixed #42 in store/sqlite.go via CreateFact.`, []string{"alias:Alice=Al", "issue:#42", "path:store/sqlite.go", "identifier:CreateFact"}},
	} {
		t.Run(tt.name, func(t *testing.T) {
			got := ents(text.Entities(tt.in))
			if fmt.Sprint(got) != fmt.Sprint(tt.want) {
				t.Errorf("Entities(%q)\n got %q\nwant %q", tt.in, got, tt.want)
			}
		})
	}
}

func TestEntityKey(t *testing.T) {
	for _, tt := range []struct{ in, want string }{
		{"  Alice   Smith ", "alice smith"},
		{"ЁЖИК\tв тумане", "ежик в туман"},
		// Russian names decline; their forms share one key.
		{"Алексей", "алекс"}, {"Алексея", "алекс"}, {"Алексеем", "алекс"},
		{"Маша", "маш"}, {"Машей", "маш"}, {"Москва", "москв"}, {"Москве", "москв"},
		{"Иван", "иван"}, {"Ивана", "иван"}, {"Иванов", "иванов"}, {"Иванова", "иванов"},
		{"Санкт-Петербурге", "санкт-петербург"}, {"Ян", "ян"},
		{"", ""},
		{"a\x00b", "a b"},
	} {
		if got := text.EntityKey(tt.in); got != tt.want {
			t.Errorf("EntityKey(%q) = %q, want %q", tt.in, got, tt.want)
		}
	}
}

func TestEntities_limits(t *testing.T) {
	var b strings.Builder
	for i := range 200 {
		fmt.Fprintf(&b, "#tag%d ", i)
	}
	b.WriteString(strings.Repeat("Abcdef ", 50) + `"` + strings.Repeat("я", 59) + `"`)
	es := text.Entities(b.String())
	if got, want := len(es), text.MaxEntities; got != want {
		t.Fatalf("got %d entities, want %d", got, want)
	}
	long := text.Entities(strings.Repeat("Ж", 59) + " aka " + strings.Repeat("Щ", 59))
	for _, e := range long {
		for _, n := range append([]string{e.Name}, e.Aliases...) {
			if len(n) > text.MaxEntityName || !utf8.ValidString(n) {
				t.Errorf("name %q: %d bytes, valid %v", n, len(n), utf8.ValidString(n))
			}
		}
	}
}

var entitySeeds = []string{
	"", "Alice Smith aka Al met Bob in New York.", `He said "hi" and «привет» and 'yo' and “ok”.`,
	"fix(module #4409): handle nil in cmd/holomem/main.go", "owner/repo#12 GH-3 #tag #123 C# &#1;",
	"https://github.com/a/b/issues/9 http.ListenAndServe foo() snake_case camelCase",
	"Это Москва. Мы в Санкт-Петербурге, «Голопамять» aka ГП", "aka", "a.k.a.", "X aka", "aka Y",
	"\"", "«", "'", "`", "``", "```go\nx\n```", "#", "#-", "/", "./", "~/", "a//b", "\xff\xfe Alice \x00 Bob",
	"(((((", "foo(", "foo(bar", ")))", strings.Repeat("Abc ", 40), strings.Repeat("\"a\" ", 100),
}

func FuzzEntities(f *testing.F) {
	for _, s := range entitySeeds {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		es := text.Entities(s)
		if len(es) > text.MaxEntities {
			t.Fatalf("%d entities", len(es))
		}
		keys := make(map[string]bool)
		for _, e := range es {
			for _, n := range append([]string{e.Name}, e.Aliases...) {
				if n == "" || len(n) > text.MaxEntityName || !utf8.ValidString(n) || strings.TrimSpace(n) != n ||
					strings.ContainsFunc(n, unicode.IsControl) {
					t.Fatalf("Entities(%q): bad name %q in %+v", s, n, e)
				}
			}
			k := text.EntityKey(e.Name)
			if keys[k] {
				t.Fatalf("Entities(%q): duplicate key %q", s, k)
			}
			keys[k] = true
			if (e.Kind == text.EntityAlias) != (len(e.Aliases) > 0) {
				t.Fatalf("Entities(%q): kind %s with aliases %q", s, e.Kind, e.Aliases)
			}
		}
	})
}

// TestEntities_pathological feeds long inputs built to trigger quadratic
// scans (many markers on one line, long runs of closers); a regression shows
// up as a test that does not finish.
func TestEntities_pathological(t *testing.T) {
	n := 3000
	if testing.Short() {
		n = 300
	}
	for name, s := range map[string]string{
		"aka":      strings.Repeat("Abc aka Def ", n),
		"akaBare":  strings.Repeat("aka ", n),
		"closers":  "x" + strings.Repeat(")", n*5),
		"quotes":   strings.Repeat(`"a `, n),
		"hashes":   strings.Repeat("a/b#1", n),
		"ticks":    strings.Repeat("` ", n),
		"capitals": strings.Repeat("Abc ", n),
		"slashes":  strings.Repeat("a/", n) + "b.go",
	} {
		t.Run(name, func(t *testing.T) {
			es := text.Entities(s)
			if len(es) > text.MaxEntities {
				t.Fatalf("%d entities", len(es))
			}
			_ = text.StripForEmbedding(s)
			_ = text.IssueRefs(s)
		})
	}
}

// TestExtract_terms covers lower-case technical names: strong ones are
// entities at once, rare words are recurring candidates ("~" below) unless
// the text or the fact's tags also use them as a tag, path component or
// identifier segment; common sentence openers are not names.
func TestExtract_terms(t *testing.T) {
	render := func(es []text.Entity) []string {
		var out []string
		for _, e := range es {
			s := string(e.Kind) + ":" + e.Name
			if e.Recurring {
				s = "~" + s
			}
			out = append(out, s)
		}
		return out
	}
	for _, tt := range []struct {
		name string
		in   string
		tags []string
		want []string
	}{
		{"RareWordRecurs", "We deployed nginx with Ansible.", nil, []string{"proper:Ansible", "~term:nginx"}},
		{"CommonWordsNot", "the servers were restarted after the deploy", nil, nil},
		{"DigitWord", "the k8s cluster speaks ipv6, not s3", nil, []string{"term:k8s", "term:ipv6"}},
		{"VersionNot", "v2 is out, p99 is fine", nil, nil},
		{"Flag", "run it with --dry-run or --half-life=1h", nil, []string{"term:--dry-run", "term:--half-life"}},
		{"Compound", "use docker-compose, pkg/errors and utf-8; read-only and/or not", nil,
			[]string{"term:docker-compose", "term:pkg/errors", "term:utf-8"}},
		{"PathEvidence", "restart nginx after editing /etc/nginx/nginx.conf", nil,
			[]string{"term:nginx", "path:/etc/nginx/nginx.conf"}},
		{"PathComponentRecurs", "edit /etc/nginx/nginx.conf", nil, []string{"path:/etc/nginx/nginx.conf", "~term:nginx"}},
		{"TagEvidence", "pnpm is faster", []string{"pnpm"}, []string{"term:pnpm"}},
		{"HashTagEvidence", "pnpm is faster #pnpm", nil, []string{"term:pnpm", "tag:#pnpm"}},
		{"IdentifierEvidence", "kubectl reads kubectl_config", nil, []string{"term:kubectl", "identifier:kubectl_config"}},
		{"Openers", "Kudos to the team. Previously it failed. Thanks!", nil, []string{"~proper:Kudos", "~proper:Previously"}},
		{"OpenerNameToo", "Mark approved it.", nil, []string{"proper:Mark"}},
		{"NotAfterAbbrev", "tools, e.g. Node.js", nil, []string{"proper:Node"}},
		{"Russian", "Мы развернули nginx у Алексея", nil, []string{"proper:Алексея", "~term:nginx"}},
		// A Russian word opening a sentence may be a noun: known entities only.
		{"RussianOpener", "Маша переехала. Команда рада, Маша тоже", nil, []string{"proper:Маша", "~proper:Команда"}},
		// Commit messages: a numbered list item opens a sentence ("1. Roughly"
		// was a name), the verb after a "scope: " subject prefix is no
		// candidate name ("printer: rejigger ..." linked every commit that
		// said rejigger), and generic jargon in capitals is no name ("UX").
		{"NumberedList", "Steps:\n1. Roughly double the buffer.\n2) Roughly halve it.", nil, []string{"~proper:Steps", "~proper:Roughly"}},
		{"NumberEndsSentence", "It took 3 tries in 2019. Roughly half failed.", nil, []string{"~proper:Roughly"}},
		{"SubjectVerb", "printer: rejigger how paths are written", nil, nil},
		{"SubjectVerbScopes", "cli/args, printer: rejigger flags\n\nWe rejigger again later.", nil, []string{"term:cli/args", "~term:rejigger"}},
		{"SubjectTermStays", "deps: nginx 1.27 everywhere", nil, []string{"~term:deps", "~term:nginx"}},
		{"SubjectObjectStays", "deps: bump nginx to 1.27", nil, []string{"~term:deps", "~term:nginx"}},
		{"JargonCaps", "cli: improve the UX and the UI; TODO: FYI", nil, nil},
		{"AcronymsStay", "We deploy to AWS via the GitHub API.", nil, []string{"proper:AWS", "identifier:GitHub", "proper:API"}},
	} {
		t.Run(tt.name, func(t *testing.T) {
			got := render(text.Extract(tt.in, tt.tags))
			if strings.Join(got, ",") != strings.Join(tt.want, ",") {
				t.Errorf("Extract(%q)\n got %q\nwant %q", tt.in, got, tt.want)
			}
			for _, e := range text.Entities(tt.in) {
				if e.Recurring {
					t.Errorf("Entities(%q) returned recurring candidate %q", tt.in, e.Name)
				}
			}
		})
	}
}
