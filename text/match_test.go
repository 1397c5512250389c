package text_test

import (
	"slices"
	"strings"
	"testing"

	"github.com/holomem/holomem/text"
)

func TestMatchAll(t *testing.T) {
	for _, tt := range []struct{ in, all, any string }{
		{"", "", ""},
		{`" ( ) * ^ -`, "", ""},
		{"nginx", `"nginx"`, `"nginx"`},
		{"deploying nginx", `("deploying" OR "deploy") AND "nginx"`, `("deploying" OR "deploy") OR "nginx"`},
		{"AND OR NOT", `"and" AND "or" AND "not"`, `"and" OR "or" OR "not"`},
		{"title:x NEAR(a b)", `("title" OR "titl") AND "x" AND "near" AND "a" AND "b"`, `("title" OR "titl") OR "x" OR "near" OR "a" OR "b"`},
		{"Nginx nginx NGINX", `"nginx"`, `"nginx"`},
		{"Россию", `("россию" OR "росс")`, `("россию" OR "росс")`},
	} {
		if got := text.MatchAll(tt.in); got != tt.all {
			t.Errorf("MatchAll(%q) = %s, want %s", tt.in, got, tt.all)
		}
		if got := text.MatchAny(tt.in); got != tt.any {
			t.Errorf("MatchAny(%q) = %s, want %s", tt.in, got, tt.any)
		}
	}
}

func TestMatchAll_limit(t *testing.T) {
	var words []string
	for i := range 100 {
		words = append(words, "w"+strings.Repeat("x", i))
	}
	q := text.MatchAll(strings.Join(words, " "))
	if got, want := strings.Count(q, " AND ")+1, text.MaxMatchTokens; got != want {
		t.Errorf("MatchAll of 100 tokens has %d terms, want %d", got, want)
	}
}

// TestMatch_FTS5 runs IndexText and MatchAll/MatchAny against a real FTS5
// table: inflected forms find each other, exact forms rank first.
func TestMatch_FTS5(t *testing.T) {
	f := newFTS(t)
	docs := map[int64][2]string{
		1: {"Столица России — Москва", "география"},
		2: {"Nginx deployed on the staging box", "ops"},
		3: {"We deploy with Ansible", "ops"},
		4: {"Ёжик в тумане", ""},
		5: {`C++ (foo) "bar" -rf title:x`, ""},
		6: {"unrelated note about cats", "pets"},
	}
	for id, d := range docs {
		f.exec(t, `INSERT INTO t(rowid, body, tags) VALUES(?, ?, ?)`, id, text.IndexText(d[0]), text.IndexText(d[1]))
	}
	for _, tt := range []struct {
		query string
		all   []int64
		any   []int64
	}{
		{"россия", []int64{1}, []int64{1}},
		{"Москву России", []int64{1}, []int64{1}},
		{"Москву в России", nil, []int64{1, 4}},
		{"deploying nginx", []int64{2}, []int64{2, 3}},
		{"Deploys", []int64{2, 3}, []int64{2, 3}},
		{"ежик", []int64{4}, []int64{4}},
		{"ЁЖИК", []int64{4}, []int64{4}},
		{"C++ (foo", []int64{5}, []int64{5}},
		{`"bar" -rf`, []int64{5}, []int64{5}},
		{"title:x", []int64{5}, []int64{5}},
		{"ops", []int64{2, 3}, []int64{2, 3}},
		{"cats AND dogs", nil, []int64{6}},
		{"NOT cats", nil, []int64{6}},
	} {
		for _, c := range []struct {
			name string
			expr string
			want []int64
		}{{"MatchAll", text.MatchAll(tt.query), tt.all}, {"MatchAny", text.MatchAny(tt.query), tt.any}} {
			got, err := f.match(c.expr)
			if err != nil {
				t.Errorf("%s(%q) = %s: %v", c.name, tt.query, c.expr, err)
				continue
			}
			if !slices.Equal(got, c.want) {
				t.Errorf("%s(%q) = %s finds %v, want %v", c.name, tt.query, c.expr, got, c.want)
			}
		}
	}
}

// matchSeeds are inputs that would be FTS5 syntax if they reached MATCH
// unquoted.
var matchSeeds = []string{
	"C++ (foo", `"`, `""`, `"unbalanced`, "-rf", "NEAR(", "NEAR(a b, 2)", "title:x", "AND", "OR", "NOT",
	"a AND", "OR b", "NOT NOT", "*", "foo*", "^", "^start", "{a b}:x", "{body tags}: x", "body:x",
	"- x", "a + b", "(", ")", "()", "россия", "Ёлка ёж", "Москва: столица", "🚀 deploy 👍🏽",
	"\xff\xfe invalid", "\x00", "nul\x00inside", "a\u0301", "\u0301", "中文字符", "x'y", "100%",
	"", " ", "a:b:c", "col:", ":x", "+", "a OR (b", `a"b`, `""""`,
}

// FuzzMatch proves that user text never reaches FTS5 as syntax: every
// expression MatchAll and MatchAny build must run without an SQL error, and
// a row indexed from the same text must be found by MatchAll.
func FuzzMatch(f *testing.F) {
	for _, s := range matchSeeds {
		f.Add(s)
	}
	db := newFTS(f)
	db.exec(f, `INSERT INTO t(rowid, body, tags) VALUES(1, ?, ?)`, text.IndexText("deploying nginx on Россия"), "ops")
	f.Fuzz(func(t *testing.T, s string) {
		all, anyExpr := text.MatchAll(s), text.MatchAny(s)
		if (all == "") != (len(text.Tokens(s)) == 0) || (anyExpr == "") != (all == "") {
			t.Fatalf("MatchAll(%q) = %q, MatchAny = %q, tokens %q", s, all, anyExpr, text.Tokens(s))
		}
		if all == "" {
			return
		}
		for _, expr := range []string{all, anyExpr} {
			if _, err := db.match(expr); err != nil {
				t.Fatalf("query %q: expression %s: %v", s, expr, err)
			}
		}
		db.exec(t, `INSERT INTO t(rowid, body) VALUES(2, ?)`, text.IndexText(s))
		defer db.exec(t, `DELETE FROM t WHERE rowid = 2`)
		for _, expr := range []string{all, anyExpr} {
			ids, err := db.match(expr)
			if err != nil {
				t.Fatal(err)
			}
			if !slices.Contains(ids, 2) {
				t.Fatalf("query %q: %s does not find its own IndexText %q", s, expr, text.IndexText(s))
			}
		}
	})
}
