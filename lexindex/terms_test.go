package lexindex

import (
	"math/rand"
	"slices"
	"strings"
	"testing"
)

// sameTerms reports whether a and b are the same terms (nil and empty
// slices alike).
func sameTerms(a, b Terms) bool {
	return a.Len == b.Len && slices.Equal(a.Stems, b.Stems) && slices.Equal(a.ContentSet, b.ContentSet)
}

// TestStemmer checks that a Stemmer derives what TermsOf does, over
// generated texts with stop-word-only facts, tags, mixed scripts and
// broken UTF-8, reusing one Stemmer (its memo and marks) throughout.
func TestStemmer(t *testing.T) {
	r := rand.New(rand.NewSource(4))
	z := newZipf(r)
	odd := []string{"Ünïcödé", "日本語のテキスト", "\xff\xfe", "a\u0301", "\u0301\u0301", "ÉCOLE", "x_y", "don't", "e-mail", "", " ", "the of"}
	var s Stemmer
	for i := range 2000 {
		content := genText(r, z, r.Intn(30))
		if i%3 == 0 {
			content += " " + odd[r.Intn(len(odd))] + odd[r.Intn(len(odd))]
		}
		var tags []string
		for range r.Intn(3) {
			tags = append(tags, odd[r.Intn(len(odd))]+genText(r, z, 1))
		}
		if got, want := s.Terms(content, tags), TermsOf(content, tags); !sameTerms(got, want) {
			t.Fatalf("Terms(%q, %q):\n got  %+v\n want %+v", content, tags, got, want)
		}
	}
}

// FuzzStemmer checks the Stemmer's derivation against TermsOf on any
// text.
func FuzzStemmer(f *testing.F) {
	f.Add("Alice deployed the billing services", "ops")
	f.Add("the and of", "")
	f.Add("Алиса развернула сервисы оплаты", "a\u0301")
	f.Add("\xff broken \xc3", "\xc3")
	var s Stemmer
	f.Fuzz(func(t *testing.T, content, tags string) {
		ts := strings.Fields(tags)
		if got, want := s.Terms(content, ts), TermsOf(content, ts); !sameTerms(got, want) {
			t.Fatalf("Terms(%q, %q):\n got  %+v\n want %+v", content, ts, got, want)
		}
	})
}
