package text

import (
	"slices"
	"strings"
)

// TokenSet returns the distinct tokens as a set.
func TokenSet(tokens []string) map[string]struct{} {
	set := make(map[string]struct{}, len(tokens))
	for _, t := range tokens {
		set[t] = struct{}{}
	}
	return set
}

// SortedSet returns the distinct tokens sorted, the form [JaccardSorted]
// compares without allocating. It does not modify tokens.
func SortedSet(tokens []string) []string {
	s := slices.Clone(tokens)
	slices.Sort(s)
	return slices.Compact(s)
}

// Jaccard returns |A∩B| / |A∪B| for the sets of tokens in a and b
// (duplicates count once), and 0 when either is empty. Short inputs are
// compared without allocating; for repeated comparisons against the same
// set, convert once with [SortedSet] and use [JaccardSorted].
func Jaccard(a, b []string) float64 {
	if len(a) == 0 || len(b) == 0 {
		return 0
	}
	if len(a)+len(b) > 64 {
		return JaccardSorted(SortedSet(a), SortedSet(b))
	}
	// Quadratic but allocation-free, which wins for query-sized inputs.
	na, inter := 0, 0
	for i, t := range a {
		if contains(a[:i], t) {
			continue
		}
		na++
		if contains(b, t) {
			inter++
		}
	}
	nb := 0
	for i, t := range b {
		if !contains(b[:i], t) {
			nb++
		}
	}
	return float64(inter) / float64(na+nb-inter)
}

// JaccardSorted is [Jaccard] for sorted, deduplicated slices such as those
// [SortedSet] returns. It does not allocate. Unsorted input gives a wrong
// answer, not a panic.
func JaccardSorted(a, b []string) float64 {
	if len(a) == 0 || len(b) == 0 {
		return 0
	}
	i, j, inter := 0, 0, 0
	for i < len(a) && j < len(b) {
		switch {
		case a[i] == b[j]:
			inter++
			i++
			j++
		case a[i] < b[j]:
			i++
		default:
			j++
		}
	}
	return float64(inter) / float64(len(a)+len(b)-inter)
}

// Stems returns the stem of every token (see [Stem]) in a new slice, for
// set comparisons that should not care about inflection.
func Stems(tokens []string) []string {
	out := make([]string, len(tokens))
	for i, t := range tokens {
		out[i] = Stem(t)
	}
	return out
}

// Shingles returns the word n-grams of tokens joined by single spaces, in
// order: Shingles([a b c], 2) is ["a b", "b c"]. Jaccard over shingles
// detects near-duplicate texts better than over words. It returns nil when
// n < 1 and the whole text as one shingle when there are fewer than n
// tokens (and at least one).
func Shingles(tokens []string, n int) []string {
	if n < 1 || len(tokens) == 0 {
		return nil
	}
	if len(tokens) <= n {
		return []string{strings.Join(tokens, " ")}
	}
	out := make([]string, 0, len(tokens)-n+1)
	for i := 0; i+n <= len(tokens); i++ {
		out = append(out, strings.Join(tokens[i:i+n], " "))
	}
	return out
}
