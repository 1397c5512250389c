package lexindex

import (
	"math/rand"
	"slices"
	"strings"
	"testing"
)

// TF gives the counts bruteSearch sums, for facts put, replaced and
// deleted in any order (Cyrillic prefixes included), and ok false for a
// fact the index does not hold.
func TestIndex_TF(t *testing.T) {
	r := rand.New(rand.NewSource(7))
	z := newZipf(r)
	x := New()
	x.compactMin = 10
	docs := map[int64]Doc{}
	for i := range 400 {
		id := int64(r.Intn(200) + 1)
		if i%9 == 4 {
			x.Delete(id)
			delete(docs, id)
			continue
		}
		d := doc(id, "a", r.Intn(4) == 0, genText(r, z, 3+r.Intn(30)))
		x.Put(d)
		docs[id] = d
	}
	checked := 0
	for i := range 200 {
		q := NewQuery(genText(r, z, 1+r.Intn(4)))
		id := int64(r.Intn(220) + 1)
		tf := make([]float64, len(q.Stems))
		n, ok := x.TF(id, q, tf)
		d, held := docs[id]
		if ok != held {
			t.Fatalf("query %d: TF(%d) ok = %v, held %v", i, id, ok, held)
		}
		if !held {
			continue
		}
		want := make([]float64, len(q.Stems))
		for _, sc := range d.Terms.Stems {
			if j := slices.Index(q.Stems, sc.Stem); j >= 0 {
				want[j] += float64(sc.Count)
				continue
			}
			for j, p := range q.Prefixes {
				if p != "" && strings.HasPrefix(sc.Stem, p) {
					want[j] += 0.5 * float64(sc.Count)
				}
			}
		}
		if n != d.Terms.Len || !slices.Equal(tf, want) {
			t.Fatalf("query %+v fact %d: TF = %v, len %d; want %v, len %d", q, id, tf, n, want, d.Terms.Len)
		}
		checked++
	}
	if checked < 50 {
		t.Fatalf("only %d held facts checked", checked)
	}
}
