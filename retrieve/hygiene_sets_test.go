package retrieve_test

import (
	"bufio"
	"encoding/json"
	"fmt"
	"os"
	"testing"

	"github.com/holomem/holomem"
	"github.com/holomem/holomem/internal/testkit/testutil"
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

// rememberedRelation adds old then new to an empty namespace of m (the
// checks never look outside a fact's namespace, so each pair meets an
// empty memory; a store per pair measured the same, four times slower)
// and names what Remember reports about old.
func rememberedRelation(t *testing.T, m *retrieve.Memory, ns, old, new string) string {
	t.Helper()
	if _, err := m.Remember(t.Context(), &holomem.Fact{Content: old, Namespace: ns}); err != nil {
		t.Fatal(err)
	}
	r, err := m.Remember(t.Context(), &holomem.Fact{Content: new, Namespace: ns})
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

// floorAll is the same precision and recall floor for every class.
func floorAll(prec, rec float64) map[string][2]float64 {
	out := map[string][2]float64{}
	for _, c := range hygClasses {
		out[c] = [2]float64{prec, rec}
	}
	return out
}

func TestRemember_HygieneSets(t *testing.T) {
	for _, set := range []struct {
		name, file string
		logMisses  bool
		// floor is each class's precision and recall floor (the measured
		// figures less a margin), acc the accuracy's.
		floor map[string][2]float64
		acc   float64
	}{
		// Measured: old 0.95..1.00 per class (accuracy 0.99), dev
		// 0.94..1.00 (0.97).
		{"old", "../text/testdata/hygiene.jsonl", true, floorAll(0.85, 0.85), 0.93},
		{"dev", "../text/testdata/hygiene_dev.jsonl", true, floorAll(0.85, 0.85), 0.9},
		// Held out (text/testdata/BLIND.md): figures only, no misses.
		// Measured: near-duplicate 0.95 / 0.68, contradiction 0.92 /
		// 0.80, refinement 0.82 / 0.98, unrelated 0.81 / 0.98, accuracy
		// 0.86; guarded about 0.05 below.
		{"blind", "../text/testdata/hygiene_blind.jsonl", false, map[string][2]float64{
			"near-duplicate": {0.88, 0.63}, "contradiction": {0.87, 0.73},
			"refinement": {0.75, 0.90}, "unrelated": {0.76, 0.95},
		}, 0.8},
	} {
		t.Run(set.name, func(t *testing.T) {
			tp, fp, fn := map[string]int{}, map[string]int{}, map[string]int{}
			pairs := loadHygPairs(t, set.file)
			m, _ := testutil.MustOpenMemory(t, retrieve.Options{})
			correct := 0
			for i, p := range pairs {
				got := rememberedRelation(t, m, fmt.Sprintf("pair-%d", i), p.Old, p.New)
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
				if f := set.floor[c]; prec < f[0] || rec < f[1] {
					t.Errorf("%s %s: precision %.2f recall %.2f, want >= %.2f / %.2f", set.name, c, prec, rec, f[0], f[1])
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
