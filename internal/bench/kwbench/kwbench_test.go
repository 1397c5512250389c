package kwbench

import (
	"bytes"
	"context"
	"errors"
	"strings"
	"testing"

	"github.com/holomem/holomem"
	"github.com/holomem/holomem/retrieve"
)

func TestGenerateDeterministic(t *testing.T) {
	d1, q1 := Generate(50, 20, 5, 7)
	d2, q2 := Generate(50, 20, 5, 7)
	if strings.Join(d1, "\n") != strings.Join(d2, "\n") || strings.Join(q1, "\n") != strings.Join(q2, "\n") {
		t.Fatal("same seed gave different data")
	}
	for _, q := range q1 {
		if len(strings.Fields(q)) != 2 {
			t.Fatalf("query %q is not two words", q)
		}
	}
}

func TestSynthWordDistinct(t *testing.T) {
	seen := map[string]int{}
	for i := range 5000 {
		w := synthWord(i)
		if len(w) < 4 {
			t.Fatalf("word %d %q shorter than 4", i, w)
		}
		if j, ok := seen[w]; ok {
			t.Fatalf("words %d and %d are both %q", j, i, w)
		}
		seen[w] = i
	}
}

func TestRunSmall(t *testing.T) {
	docs, queries := Generate(200, 20, 10, 1)
	rep, err := Run(context.Background(), Options{Docs: docs, Queries: queries, Rounds: 1, Dir: t.TempDir()})
	if err != nil {
		t.Fatal(err)
	}
	if rep.Samples != len(queries) || rep.RecallHits == 0 || rep.PlainHits == 0 {
		t.Fatalf("report %+v", rep)
	}
	// The baseline asks recall's question (any word), so it finds at
	// least what the every-word query finds, and on Zipf text far more.
	if rep.PlainHits <= rep.AllHits {
		t.Errorf("any-word baseline %d hits, every-word query %d: want more", rep.PlainHits, rep.AllHits)
	}
	if rep.PlainHits < rep.RecallHits/2 {
		t.Errorf("any-word baseline %d hits against recall's %d", rep.PlainHits, rep.RecallHits)
	}
	if rep.Stages.Calls != len(queries) || rep.Stages.Get(retrieve.StageFTS) <= 0 {
		t.Fatalf("stages not traced: %+v", rep.Stages)
	}
	var b bytes.Buffer
	rep.Print(&b)
	for _, want := range []string{"plain FTS5 BM25, any word (OR)", "every word (AND)*", "ratio recall / plain any word", "fts", "touch"} {
		if !strings.Contains(b.String(), want) {
			t.Errorf("report lacks %q:\n%s", want, b.String())
		}
	}
}

func TestRunNeedsData(t *testing.T) {
	if _, err := Run(context.Background(), Options{}); !errors.Is(err, holomem.ErrInvalid) {
		t.Fatalf("err = %v, want ErrInvalid", err)
	}
}
