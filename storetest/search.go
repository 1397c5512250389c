package storetest

import (
	"slices"
	"strings"
	"testing"

	"github.com/holomem/holomem"
)

func testSearchTextRanking(t *testing.T, s holomem.Store) {
	a := create(t, s, fact("nginx serves the static files for the web frontend"))
	b := create(t, s, fact("nginx nginx nginx: the reverse proxy is nginx"))
	create(t, s, fact("postgres stores the orders"))
	ms := search(t, s, "", "nginx", 10)
	if got := matchIDs(ms); !slices.Equal(got, []int64{b.ID, a.ID}) {
		t.Fatalf("SearchText(nginx) = %v, want [%d %d]", ms, b.ID, a.ID)
	}
	if ms[0].Score != 1 || ms[1].Score <= 0 || ms[1].Score > 1 {
		t.Errorf("scores = %v, want the best at 1 and the rest in (0, 1]", ms)
	}
	// Case and punctuation do not matter.
	if got := matchIDs(search(t, s, "", "NGINX!!", 10)); !slices.Equal(got, []int64{b.ID, a.ID}) {
		t.Errorf("SearchText(NGINX!!) = %v", got)
	}
	// The same query gives the same answer.
	again := search(t, s, "", "nginx", 10)
	if !slices.Equal(again, ms) {
		t.Errorf("repeated search = %v, want %v", again, ms)
	}
	if got := search(t, s, "", "nginx", 1); len(got) != 1 || got[0].ID != b.ID {
		t.Errorf("limit 1 = %v", got)
	}
	// Ties are broken by id.
	x := create(t, s, fact("kafka topic"))
	y := create(t, s, fact("topic kafka"))
	if got := matchIDs(search(t, s, "", "kafka topic", 10)); !slices.Equal(got, []int64{x.ID, y.ID}) {
		t.Errorf("tied hits = %v, want id order [%d %d]", got, x.ID, y.ID)
	}
}

func testSearchTextRelaxed(t *testing.T, s holomem.Store) {
	both := create(t, s, fact("redis cache eviction policy"))
	one := create(t, s, fact("redis is single threaded"))
	other := create(t, s, fact("eviction notice for the tenant"))
	create(t, s, fact("nothing relevant here"))
	ms := search(t, s, "", "redis eviction", 10)
	if len(ms) != 3 || ms[0].ID != both.ID || ms[0].Score != 1 {
		t.Fatalf("SearchText = %v, want %d first with score 1, then the any-term hits", ms, both.ID)
	}
	rest := matchIDs(ms[1:])
	slices.Sort(rest)
	if !slices.Equal(rest, []int64{one.ID, other.ID}) {
		t.Errorf("relaxed hits = %v, want %d and %d", rest, one.ID, other.ID)
	}
	for _, m := range ms[1:] {
		if m.Score <= 0 || m.Score > 0.5 {
			t.Errorf("relaxed hit %d scored %v, want (0, 0.5]", m.ID, m.Score)
		}
	}
	// When all terms already fill the limit, nothing is relaxed.
	if got := search(t, s, "", "redis eviction", 1); len(got) != 1 || got[0].ID != both.ID {
		t.Errorf("limit 1 = %v, want [%d]", got, both.ID)
	}
	// Only any-term hits: the best scores 0.5.
	ms = search(t, s, "", "redis tenant", 10)
	if len(ms) == 0 || ms[0].Score != 0.5 {
		t.Errorf("only relaxed hits = %v, want the best at 0.5", ms)
	}
}

func testSearchTextInflection(t *testing.T, s holomem.Store) {
	ru := create(t, s, fact("Столица России — Москва"))
	en := create(t, s, fact("We deployed the service yesterday"))
	yo := create(t, s, fact("Ёжик в тумане"))
	tests := []struct {
		q    string
		want int64
	}{
		{"россия", ru.ID},
		{"России", ru.ID},
		{"столицу", ru.ID},
		{"deploying", en.ID},
		{"deploy", en.ID},
		{"deploys", en.ID},
		{"services", en.ID},
		{"ежик", yo.ID},
		{"ёжик", yo.ID},
	}
	for _, tt := range tests {
		if got := matchIDs(search(t, s, "", tt.q, 10)); !slices.Equal(got, []int64{tt.want}) {
			t.Errorf("SearchText(%q) = %v, want [%d]", tt.q, got, tt.want)
		}
	}
}

func testSearchTextNamespace(t *testing.T, s holomem.Store) {
	a := create(t, s, fact("shared word apple"))
	b := create(t, s, &holomem.Fact{Content: "shared word apple", Namespace: "team"})
	if got := matchIDs(search(t, s, "", "apple", 10)); !slices.Equal(got, []int64{a.ID}) {
		t.Errorf("default namespace = %v, want [%d]", got, a.ID)
	}
	if got := matchIDs(search(t, s, "team", "apple", 10)); !slices.Equal(got, []int64{b.ID}) {
		t.Errorf("team namespace = %v, want [%d]", got, b.ID)
	}
	if got := search(t, s, "nobody", "apple", 10); len(got) != 0 {
		t.Errorf("unknown namespace = %v", got)
	}
	// Namespaces are data too: quotes, braces, spaces, Unicode.
	odd := `команда "x" 'y' {z} : AND *`
	c := create(t, s, &holomem.Fact{Content: "shared word apple", Namespace: odd})
	if got := matchIDs(search(t, s, odd, "apple", 10)); !slices.Equal(got, []int64{c.ID}) {
		t.Errorf("odd namespace = %v, want [%d]", got, c.ID)
	}
	if got := matchIDs(search(t, s, "", "apple", 10)); !slices.Equal(got, []int64{a.ID}) {
		t.Errorf("default namespace after the odd one = %v, want [%d]", got, a.ID)
	}
}

func testSearchTextTags(t *testing.T, s holomem.Store) {
	f := create(t, s, &holomem.Fact{Content: "the deploy checklist", Tags: []string{"kubernetes"}})
	if got := matchIDs(search(t, s, "", "kubernetes", 10)); !slices.Equal(got, []int64{f.ID}) {
		t.Errorf("search by tag = %v, want [%d]", got, f.ID)
	}
}

func testSearchTextOperators(t *testing.T, s holomem.Store) {
	cpp := create(t, s, fact("C++ templates and foo bars"))
	rf := create(t, s, fact("never run rm -rf / on the server"))
	near := create(t, s, fact("NEAR the title: x marks AND the spot"))
	queries := []string{
		`C++ (foo`, `"`, `""`, `-rf`, `NEAR(`, `NEAR(a b, 2)`, `title:x`, `AND`, `OR`, `NOT`, `*`, `^foo`,
		`foo*`, `'`, `\`, `(`, `)`, `{content}: foo`, `content:foo`, `a AND OR b`, `"unbalanced`,
		`%`, `_`, `'; DROP TABLE facts; --`, "\x00", "tab\tand\nnewline", `+`, `:`, `-`, `NEAR`,
	}
	for _, q := range queries {
		if _, err := s.SearchText(t.Context(), "", q, 10); err != nil {
			t.Errorf("SearchText(%q): %v", q, err)
		}
	}
	tests := []struct {
		q    string
		want int64
	}{
		{`C++ (foo`, cpp.ID},
		{`-rf`, rf.ID},
		{`rm -rf`, rf.ID},
		{`title:x`, near.ID},
		{`NEAR(`, near.ID},
		{`spot AND`, near.ID},
	}
	for _, tt := range tests {
		ms := search(t, s, "", tt.q, 10)
		if len(ms) == 0 || ms[0].ID != tt.want {
			t.Errorf("SearchText(%q) = %v, want %d first", tt.q, ms, tt.want)
		}
	}
	// The store still works after hostile queries.
	if _, n, err := s.FindFacts(t.Context(), holomem.FactFilter{}); err != nil || n != 3 {
		t.Errorf("FindFacts after hostile queries = %d, %v", n, err)
	}
	// Queries without words find nothing and are not errors.
	for _, q := range []string{"", "   ", `"`, `*`, `()`, "\x00"} {
		if ms := search(t, s, "", q, 10); len(ms) != 0 {
			t.Errorf("SearchText(%q) = %v, want none", q, ms)
		}
	}
}

func testSearchTextErrors(t *testing.T, s holomem.Store) {
	_, err := s.SearchText(t.Context(), "", "bad \xff", 10)
	wantErr(t, "invalid UTF-8", err, holomem.ErrInvalid)
	_, err = s.SearchText(t.Context(), "", strings.Repeat("word ", holomem.MaxQueryBytes), 10)
	wantErr(t, "huge query", err, holomem.ErrInvalid)
}

func testSearchTextWithSuperseded(t *testing.T, s holomem.Store) {
	ctx := t.Context()
	older := create(t, s, fact("the build server is jenkins"))
	newer := create(t, s, fact("the build server is buildkite"))
	if err := s.Supersede(ctx, older.ID, newer.ID); err != nil {
		t.Fatal(err)
	}
	if got := matchIDs(search(t, s, "", "build server", 10)); !slices.Equal(got, []int64{newer.ID}) {
		t.Errorf("default search = %v, want [%d]", got, newer.ID)
	}
	ms, err := s.SearchText(ctx, "", "build server", 10, holomem.WithSuperseded())
	if err != nil {
		t.Fatal(err)
	}
	got := matchIDs(ms)
	slices.Sort(got)
	if !slices.Equal(got, []int64{older.ID, newer.ID}) {
		t.Errorf("WithSuperseded = %v, want both", ms)
	}
	if ms, _ := s.SearchText(ctx, "", "jenkins", 10, holomem.WithSuperseded()); len(ms) != 1 || ms[0].ID != older.ID || ms[0].Score != 1 {
		t.Errorf("WithSuperseded(jenkins) = %v, want [%d] at 1", ms, older.ID)
	}
}
