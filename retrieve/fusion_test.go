package retrieve

import (
	"slices"
	"testing"

	"github.com/holomem/holomem"
)

func TestBM25ParamsOf(t *testing.T) {
	tests := []struct {
		category, source string
		want             bm25Params
	}{
		{"", "", memoryBM25},
		{"conversation", "", memoryBM25},
		{"commit", "import:git", memoryBM25},
		{"doc", "", documentBM25},
		{"Documentation", "", documentBM25},
		{"", sourceMarkdown, documentBM25},
		{"project", sourceMarkdown, memoryBM25}, // the category says what it is
	}
	for _, tc := range tests {
		f := &holomem.Fact{Category: tc.category, Source: tc.source}
		if got := bm25ParamsOf(f); got != tc.want {
			t.Errorf("category %q source %q: %+v, want %+v", tc.category, tc.source, got, tc.want)
		}
	}
}

func TestAddHeading(t *testing.T) {
	lq := &lexicalQuery{stems: []string{"kestrel", "falcon"}}
	tests := []struct {
		name    string
		content string
		tf      []float64
		extra   int
	}{
		{"title", "Kestrel\nA small falcon.", []float64{headingWeight - 1, 0}, int(headingWeight - 1)},
		{"markdown heading", "# The kestrel and the falcon\n\nBirds.", []float64{headingWeight - 1, headingWeight - 1}, int(5 * (headingWeight - 1))},
		{"one line", "Kestrel falcon", []float64{0, 0}, 0},
		{"nothing after", "Kestrel\n  \n", []float64{0, 0}, 0},
		{"empty first line", "\nKestrel", []float64{0, 0}, 0},
		{"long first line", "The kestrel a b c d e f g h i j k l m n o p q r s t u v w x y z\nmore", []float64{0, 0}, 0},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			tf := make([]float64, 2)
			if extra := addHeading(tc.content, lq, tf); extra != tc.extra || !slices.Equal(tf, tc.tf) {
				t.Errorf("extra %d tf %v, want %d %v", extra, tf, tc.extra, tc.tf)
			}
		})
	}
}

func TestPairTF(t *testing.T) {
	lq := &lexicalQuery{stems: []string{"bank", "america", "loan"}}
	tests := []struct {
		content string
		want    []float64
	}{
		{"Bank of America offers a loan", []float64{1, 0}},
		{"America's bank: loans from the bank of America", []float64{2, 0}},
		{"a loan from America, then the river bank", []float64{0, 1}},
		{"America loan", []float64{0, 1}},
		{"nothing", []float64{0, 0}},
	}
	for _, tc := range tests {
		out := make([]float64, 2)
		pairTF(tc.content, lq, out)
		if !slices.Equal(out, tc.want) {
			t.Errorf("%q: %v, want %v", tc.content, out, tc.want)
		}
	}
	if hasPair([]float64{1, 0, 1}) || !hasPair([]float64{0, 2, 1}) {
		t.Error("hasPair wrong")
	}
}
