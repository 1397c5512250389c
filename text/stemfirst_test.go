package text

import (
	"os"
	"path/filepath"
	"testing"
	"unicode/utf8"
)

// TestStem_KeepsFirstRune: recall's BM25 re-scoring stems only the tokens
// that start like a query stem, so Stem must never change a token's first
// rune. Checked on the special cases of both stemmers and on every token
// of the test data.
func TestStem_KeepsFirstRune(t *testing.T) {
	toks := []string{"skies", "skis", "dying", "lying", "tying", "yelling", "yesterday", "years",
		"yyyy", "idly", "gently", "ugly", "early", "only", "singly", "news", "howe", "atlas",
		"cosmos", "bias", "andes", "generously", "communication", "arsenal", "hoping", "hopping",
		"café", "naïve", "россии", "яблоками", "ёлками", "іграми", "їжею", "ukrainian"}
	files, err := filepath.Glob(filepath.Join("testdata", "*.*"))
	if err != nil {
		t.Fatal(err)
	}
	for _, f := range files {
		b, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		toks = append(toks, Tokens(string(b))...)
	}
	if len(toks) < 1000 {
		t.Fatalf("only %d tokens to check", len(toks))
	}
	for _, tok := range toks {
		tok = Normalize(tok)
		st := Stem(tok)
		a, _ := utf8.DecodeRuneInString(tok)
		b, _ := utf8.DecodeRuneInString(st)
		if a != b {
			t.Errorf("Stem(%q) = %q: the first rune changed", tok, st)
		}
	}
}
