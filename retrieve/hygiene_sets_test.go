package retrieve_test

import (
	"bufio"
	"encoding/json"
	"os"
	"testing"

	"github.com/holomem/holomem"
	"github.com/holomem/holomem/internal/testutil"
	"github.com/holomem/holomem/retrieve"
)

// The write-time hygiene sets measured through Remember, the path every
// door (`holomem add`, MCP remember, HTTP) takes: per pair, a fresh memory
// remembers old, then new, and the relation is what Remember reports
// (a contradiction before a refinement before a near-duplicate; nothing
// is "unrelated"). `go test -run TestRemember_HygieneSets -v ./retrieve/`
// prints precision and recall per class for each set.

type hygPair struct {
	New   string `json:"new"`
	Old   string `json:"old"`
	Label string `json:"label"`
	Lang  string `json:"lang"`
}

var hygClasses = []string{"near-duplicate", "contradiction", "refinement", "unrelated"}

func loadHygPairs(t *testing.T, name string) []hygPair {
	t.Helper()
	f, err := os.Open(name)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var out []hygPair
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		if len(sc.Bytes()) == 0 {
			continue
		}
		var p hygPair
		if err := json.Unmarshal(sc.Bytes(), &p); err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		out = append(out, p)
	}
	if err := sc.Err(); err != nil {
		t.Fatal(err)
	}
	return out
}

// rememberedRelation adds old then new to a fresh memory and names what
// Remember reports about old.
func rememberedRelation(t *testing.T, old, new string) string {
	t.Helper()
	m, _ := testutil.MustOpenMemory(t, retrieve.Options{})
	remember(t, m, old)
	r, err := m.Remember(t.Context(), &holomem.Fact{Content: new})
	if err != nil {
		t.Fatal(err)
	}
	switch {
	case len(r.Contradictions) > 0:
		return "contradiction"
	case len(r.Refinements) > 0:
		return "refinement"
	case len(r.NearDuplicates) > 0:
		return "near-duplicate"
	}
	return "unrelated"
}

func TestRemember_HygieneSets(t *testing.T) {
	if testing.Short() {
		t.Skip("opens a store per pair")
	}
	for _, set := range []struct {
		name, file string
		logMisses  bool
		// floor is each class's precision and recall floor (the measured
		// figures less a margin), acc the accuracy's.
		floor, acc float64
	}{
		{"old", "../text/testdata/hygiene.jsonl", true, 0, 0},
		{"dev", "../text/testdata/hygiene_dev.jsonl", true, 0, 0},
		// Held out (text/testdata/BLIND.md): figures only, no misses.
		{"blind", "../text/testdata/hygiene_blind.jsonl", false, 0, 0},
	} {
		t.Run(set.name, func(t *testing.T) {
			tp, fp, fn := map[string]int{}, map[string]int{}, map[string]int{}
			pairs := loadHygPairs(t, set.file)
			correct := 0
			for _, p := range pairs {
				got := rememberedRelation(t, p.Old, p.New)
				if got == p.Label {
					tp[got]++
					correct++
					continue
				}
				fp[got]++
				fn[p.Label]++
				if set.logMisses {
					t.Logf("miss (%s): %q vs %q: got %s, want %s", p.Lang, p.New, p.Old, got, p.Label)
				}
			}
			for _, c := range hygClasses {
				prec := float64(tp[c]) / float64(max(1, tp[c]+fp[c]))
				rec := float64(tp[c]) / float64(max(1, tp[c]+fn[c]))
				t.Logf("FIGURE add %s %-15s precision %.2f recall %.2f (%d/%d)", set.name, c, prec, rec, tp[c], tp[c]+fn[c])
				if prec < set.floor || rec < set.floor {
					t.Errorf("%s %s: precision %.2f recall %.2f, want both >= %.2f", set.name, c, prec, rec, set.floor)
				}
			}
			acc := float64(correct) / float64(max(1, len(pairs)))
			t.Logf("FIGURE add %s accuracy %.2f (%d/%d)", set.name, acc, correct, len(pairs))
			if acc < set.acc {
				t.Errorf("%s accuracy %.2f, want >= %.2f", set.name, acc, set.acc)
			}
		})
	}
}
