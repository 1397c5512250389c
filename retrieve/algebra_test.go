package retrieve_test

import (
	"fmt"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"

	"github.com/holomem/holomem"
	"github.com/holomem/holomem/internal/testkit/testutil"
	"github.com/holomem/holomem/retrieve"
)

// syntheticFacts makes n facts of 6-20 lower-case words and 1-3 capitalised
// entity names from a pool of entities, deterministically.
func syntheticFacts(n, entities int, seed uint64) []*holomem.Fact {
	r := rand.New(rand.NewPCG(seed, 1))
	word := func() string {
		const letters = "abcdefghijklmnoprstuvwxyz"
		b := make([]byte, 3+r.IntN(6))
		for i := range b {
			b[i] = letters[r.IntN(len(letters))]
		}
		return string(b)
	}
	vocab := make([]string, 3000)
	for i := range vocab {
		vocab[i] = word()
	}
	names := make([]string, entities)
	for i := range names {
		names[i] = fmt.Sprintf("Zq%s%d", word(), i)
	}
	facts := make([]*holomem.Fact, n)
	for i := range facts {
		var b strings.Builder
		b.WriteString("note")
		for range 6 + r.IntN(15) {
			b.WriteString(" " + vocab[r.IntN(len(vocab))])
		}
		for range 1 + r.IntN(3) {
			b.WriteString(" about " + names[r.IntN(len(names))])
		}
		facts[i] = &holomem.Fact{Content: fmt.Sprintf("%s number %d", b.String(), i)}
	}
	return facts
}

func TestMemory_ProbeReason(t *testing.T) {
	m, s := testutil.MustOpenMemory(t, retrieve.Options{})
	ctx := t.Context()
	const n, nEnt = 2000, 200
	facts := syntheticFacts(n, nEnt, 7)
	if _, err := m.Import(ctx, facts); err != nil {
		t.Fatal(err)
	}
	ents, err := s.FindEntities(ctx, holomem.DefaultNamespace, 40)
	if err != nil {
		t.Fatal(err)
	}
	checked := 0
	for _, e := range ents {
		if !strings.HasPrefix(e.Name, "Zq") {
			continue
		}
		members, err := s.FactIDsByEntity(ctx, holomem.DefaultNamespace, e.Name)
		if err != nil {
			t.Fatal(err)
		}
		hits, err := m.Probe(ctx, "", strings.ToLower(e.Name), min(n, holomem.MaxLimit))
		if err != nil {
			t.Fatal(err)
		}
		got := ids(hits)
		if len(got) < len(members) {
			t.Fatalf("probe(%s): %d hits, want all %d members", e.Name, len(got), len(members))
		}
		top := slices.Clone(got[:len(members)])
		slices.Sort(top)
		if !slices.Equal(top, members) {
			t.Fatalf("probe(%s): members do not all rank above non-members\n top %v\nwant %v", e.Name, top, members)
		}
		checked++
	}
	if checked < 20 {
		t.Fatalf("checked %d entities, want >= 20", checked)
	}

	// reason(X, Y): exactly the facts linked to both come first.
	pairs := 0
	for i := 0; i < len(ents) && pairs < 10; i++ {
		for j := i + 1; j < len(ents) && pairs < 10; j++ {
			a, _ := s.FactIDsByEntity(ctx, holomem.DefaultNamespace, ents[i].Name)
			b, _ := s.FactIDsByEntity(ctx, holomem.DefaultNamespace, ents[j].Name)
			var both []int64
			for _, id := range a {
				if slices.Contains(b, id) {
					both = append(both, id)
				}
			}
			if len(both) == 0 {
				continue
			}
			pairs++
			hits, err := m.Reason(ctx, "", []string{ents[i].Name, ents[j].Name}, holomem.MaxLimit)
			if err != nil {
				t.Fatal(err)
			}
			got := ids(hits)
			if len(got) < len(both) {
				t.Fatalf("reason(%s, %s) = %v, want %v first", ents[i].Name, ents[j].Name, got, both)
			}
			top := slices.Clone(got[:len(both)])
			slices.Sort(top)
			if !slices.Equal(top, both) {
				t.Fatalf("reason(%s, %s) top = %v, want %v", ents[i].Name, ents[j].Name, top, both)
			}
		}
	}
	if pairs == 0 {
		t.Fatal("no co-occurring entity pairs to check")
	}

	// related(X): entities that co-occur with X, none that never do.
	x := ents[0].Name
	rel, err := m.Related(ctx, "", x, 10)
	if err != nil {
		t.Fatal(err)
	}
	if len(rel) == 0 {
		t.Fatalf("related(%s) found nothing", x)
	}
	xs, _ := s.FactIDsByEntity(ctx, holomem.DefaultNamespace, x)
	co, err := s.EntitiesOf(ctx, xs)
	if err != nil {
		t.Fatal(err)
	}
	for _, r := range rel {
		found := false
		for _, names := range co {
			for _, nm := range names {
				if strings.EqualFold(nm, r.Entity) {
					found = true
				}
			}
		}
		if !found {
			t.Errorf("related(%s) returned %s, which never co-occurs with it", x, r.Entity)
		}
	}

	// An unknown entity returns nothing, not noise.
	if hits, err := m.Probe(ctx, "", "Nobodyknowsme", 10); err != nil || len(hits) != 0 {
		t.Errorf("probe(unknown) = %v, %v; want no hits", ids(hits), err)
	}
}
