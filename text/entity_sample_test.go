package text_test

import (
	"bufio"
	"os"
	"sort"
	"strings"
	"testing"

	"github.com/holomem/holomem/text"
)

// sampleFact is one line of testdata/entities.tsv.
type sampleFact struct {
	ns, content string
	gold        map[string]bool // entity keys
}

func readEntitySample(t *testing.T) []sampleFact {
	t.Helper()
	f, err := os.Open("testdata/entities.tsv")
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var out []sampleFact
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		line := sc.Text()
		if line == "" || strings.HasPrefix(line, "#") {
			continue
		}
		cols := strings.Split(line, "\t")
		if len(cols) != 3 {
			t.Fatalf("entities.tsv: want 3 columns: %q", line)
		}
		sf := sampleFact{ns: cols[0], content: cols[1], gold: map[string]bool{}}
		for _, g := range strings.Split(cols[2], "|") {
			if k := text.EntityKey(g); k != "" {
				sf.gold[k] = true
			}
		}
		out = append(out, sf)
	}
	if err := sc.Err(); err != nil {
		t.Fatal(err)
	}
	return out
}

// predictEntities does what a store does with the sample as one memory per
// namespace: each fact's entities, plus its recurring candidates that the
// namespace knows as entities (a term at least text.MinTermFacts facts of
// the namespace contain, or any name another fact makes an entity).
func predictEntities(facts []sampleFact) []map[string]bool {
	type nsKey struct{ ns, key string }
	count := map[nsKey]int{}
	all := make([][]text.Entity, len(facts))
	for i, f := range facts {
		all[i] = text.Extract(f.content, nil)
		seen := map[string]bool{}
		for _, e := range all[i] {
			if k := text.EntityKey(e.Name); !seen[k] {
				seen[k] = true
				count[nsKey{f.ns, k}]++
			}
		}
	}
	known := map[nsKey]bool{} // entities without context: the namespace has them
	for i, f := range facts {
		for _, e := range all[i] {
			k := text.EntityKey(e.Name)
			if !e.Recurring || e.Kind == text.EntityTerm && count[nsKey{f.ns, k}] >= text.MinTermFacts {
				known[nsKey{f.ns, k}] = true
			}
		}
	}
	out := make([]map[string]bool, len(facts))
	for i, f := range facts {
		out[i] = map[string]bool{}
		for _, e := range all[i] {
			if k := text.EntityKey(e.Name); known[nsKey{f.ns, k}] {
				out[i][k] = true
			}
		}
	}
	return out
}

// TestEntitySample reports entity precision and recall on the labelled
// sample (docs/evaluation.md quotes them; run with -v) and
// fails when either drops below the floor.
func TestEntitySample(t *testing.T) {
	facts := readEntitySample(t)
	pred := predictEntities(facts)
	type score struct{ tp, fp, fn int }
	by := map[string]*score{"en": {}, "ru": {}, "all": {}}
	var misses, extras []string
	contexts := 0
	for i, f := range facts {
		lang := "en"
		if f.ns == "ru" {
			lang = "ru"
		}
		contexts += len(f.gold)
		for k := range pred[i] {
			if f.gold[k] {
				by[lang].tp++
				by["all"].tp++
			} else {
				by[lang].fp++
				by["all"].fp++
				extras = append(extras, k+" in "+f.content)
			}
		}
		for k := range f.gold {
			if !pred[i][k] {
				by[lang].fn++
				by["all"].fn++
				misses = append(misses, k+" in "+f.content)
			}
		}
	}
	sort.Strings(misses)
	sort.Strings(extras)
	for _, m := range misses {
		t.Logf("missed: %s", m)
	}
	for _, e := range extras {
		t.Logf("extra:  %s", e)
	}
	for _, lang := range []string{"en", "ru", "all"} {
		s := by[lang]
		p := float64(s.tp) / float64(max(1, s.tp+s.fp))
		r := float64(s.tp) / float64(max(1, s.tp+s.fn))
		t.Logf("%-3s precision %.3f recall %.3f (tp %d fp %d fn %d)", lang, p, r, s.tp, s.fp, s.fn)
		if lang == "all" && (p < 0.85 || r < 0.8) {
			t.Errorf("entity precision %.3f recall %.3f, want >= 0.85 and >= 0.8", p, r)
		}
	}
	if len(facts) < 80 || contexts < 100 {
		t.Errorf("sample has %d facts and %d gold entities; want >= 80 and >= 100", len(facts), contexts)
	}
}
