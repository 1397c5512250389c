package postgres

import (
	"context"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/holomem/holomem/internal/testkit/pgtest"
)

func TestTSVectorText(t *testing.T) {
	tests := []struct {
		content, tags string
		want          string
	}{
		{"", "", ""},
		{"Deploying deployed", "", "'deploy':1,2 'deployed':2 'deploying':1"},
		{"Ёжик café", "ops", "'cafe':2 'op':3 'ops':3 'ежик':1"},
		{"nginx nginx", "", "'nginx':1,2"},
		{"it's a \\ path", "", "'a':3 'it':1 'path':4 's':2"},
	}
	for _, tt := range tests {
		if got := tsvectorText(tt.content, tt.tags); got != tt.want {
			t.Errorf("tsvectorText(%q, %q) = %q, want %q", tt.content, tt.tags, got, tt.want)
		}
	}
}

func TestTSQuery(t *testing.T) {
	tests := []struct {
		q, op, want string
	}{
		{"", "&", ""},
		{"!!! ::", "&", ""},
		{"Deploying nginx", "&", "('deploying' | 'deploy') & 'nginx'"},
		{"a:* | b & !c", "|", "'a' | 'b' | 'c'"},
		{"nginx NGINX nginx", "&", "'nginx'"},
	}
	for _, tt := range tests {
		if got := tsquery(queryTerms(tt.q), tt.op); got != tt.want {
			t.Errorf("tsquery(%q, %q) = %q, want %q", tt.q, tt.op, got, tt.want)
		}
	}
}

func TestWriteLexeme(t *testing.T) {
	var b strings.Builder
	writeLexeme(&b, `it's a \ test`)
	if got, want := b.String(), `'it''s a \\ test'`; got != want {
		t.Errorf("writeLexeme = %s, want %s", got, want)
	}
}

// FuzzTSText checks that whatever the text, the tsvector and tsquery built
// from it are accepted by PostgreSQL (when HOLOMEM_TEST_POSTGRES is set)
// and that a fact always matches a query made of its own words, all of
// them or any: quoting never lets text turn into tsquery operators.
func FuzzTSText(f *testing.F) {
	for _, s := range []string{
		"plain words", `it's "quoted" \ back\\slash`, "a:* & b | !c <-> d", "Ёлка ёжик Россия России",
		"café naïve ÅÄÖ", "snake_case v1.2 #tag @user", "日本語のテキスト", "'''", "\\'\\'", "x\x00y",
		strings.Repeat("long", 600), "Deploying deployed deploys",
	} {
		f.Add(s)
	}
	var conn *pgx.Conn
	if addr := os.Getenv(pgtest.EnvVar); addr != "" {
		ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
		defer cancel()
		c, err := pgx.Connect(ctx, addr)
		if err != nil {
			f.Fatalf("connect: %v", err)
		}
		conn = c
		f.Cleanup(func() { c.Close(context.Background()) })
	}
	f.Fuzz(func(t *testing.T, s string) {
		vec := tsvectorText(s, "")
		terms := queryTerms(s)
		all, anyQ := tsquery(terms, "&"), tsquery(terms, "|")
		if (vec == "") != (all == "") {
			t.Fatalf("text %q: vector %q but query %q", s, vec, all)
		}
		if conn == nil || vec == "" {
			return
		}
		var okAll, okAny bool
		err := conn.QueryRow(context.Background(), "SELECT $1::tsvector @@ $2::tsquery, $1::tsvector @@ $3::tsquery", vec, all, anyQ).Scan(&okAll, &okAny)
		if err != nil {
			t.Fatalf("text %q: vector %q, query %q: %v", s, vec, all, err)
		}
		if !okAll || !okAny {
			t.Fatalf("text %q does not match its own words: vector %q, all %q (%v), any %q (%v)", s, vec, all, okAll, anyQ, okAny)
		}
	})
}
