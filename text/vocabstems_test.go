package text

import (
	"slices"
	"strings"
	"testing"
)

// TestTechVocabStems: techVocabStems holds the Snowball stems of
// techVocab's words that differ from the word, sorted and distinct, as
// vocabStems needs them; on a change of either list it prints the value
// to paste.
func TestTechVocabStems(t *testing.T) {
	var want []string
	for _, w := range strings.Fields(techVocab) {
		if st := stem(scriptLatin, w); st != w {
			want = append(want, st)
		}
	}
	slices.Sort(want)
	want = slices.Compact(want)
	if got := strings.Fields(techVocabStems); !slices.Equal(got, want) {
		t.Errorf("techVocabStems is out of date; want:\n%s", strings.Join(want, " "))
	}
}
