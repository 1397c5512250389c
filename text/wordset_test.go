package text

import (
	"math/rand/v2"
	"testing"
)

// refShared counts the words of a and b in common with maps.
func refShared(a, b []string) (shared, na, nb int) {
	sa, sb := map[string]bool{}, map[string]bool{}
	for _, w := range a {
		sa[w] = true
	}
	for _, w := range b {
		sb[w] = true
	}
	for w := range sa {
		if sb[w] {
			shared++
		}
	}
	return shared, len(sa), len(sb)
}

func TestWordSet_AsMaps(t *testing.T) {
	vocab := []string{"", "a", "b", "nginx", "ansible", "db-2", "2", "3", "é", "база", "deploy", "deploys"}
	r := rand.New(rand.NewPCG(1, 2))
	pick := func() []string {
		out := make([]string, r.IntN(9))
		for i := range out {
			out[i] = vocab[r.IntN(len(vocab))]
		}
		return out
	}
	for range 2000 {
		a, b := pick(), pick()
		sa, sb := NewWordSet(a), NewWordSet(b)
		shared, na, nb := refShared(a, b)
		if got := sa.Shared(sb); got != shared || sa.Len() != na || sb.Len() != nb {
			t.Fatalf("%q ∩ %q: shared %d, sizes %d %d; want %d, %d %d", a, b, got, sa.Len(), sb.Len(), shared, na, nb)
		}
		if got, want := JaccardSets(sa, sb), JaccardSorted(SortedSet(a), SortedSet(b)); got != want {
			t.Fatalf("JaccardSets(%q, %q) = %v; JaccardSorted %v", a, b, got, want)
		}
	}
}

func FuzzWordSet(f *testing.F) {
	f.Add("we deploy nginx with ansible", "we deployed nginx with terraform")
	f.Fuzz(func(t *testing.T, x, y string) {
		a, b := Tokens(x), Tokens(y)
		shared, na, nb := refShared(a, b)
		sa, sb := NewWordSet(a), NewWordSet(b)
		if got := sa.Shared(sb); got != shared || sa.Len() != na || sb.Len() != nb {
			t.Fatalf("shared %d sizes %d %d; want %d %d %d", got, sa.Len(), sb.Len(), shared, na, nb)
		}
	})
}
