package sqlstore

import (
	"cmp"
	"fmt"
	"slices"
	"sort"
	"unicode/utf8"

	"github.com/holomem/holomem"
)

// CheckSearch validates a full-text query and returns the limit to use
// (limit <= 0 means [holomem.DefaultLimit]). ErrInvalid for a query that
// is not UTF-8 or longer than [holomem.MaxQueryBytes].
func CheckSearch(query string, limit int) (int, error) {
	if !utf8.ValidString(query) {
		return 0, fmt.Errorf("search text: %w: query is not valid UTF-8", holomem.ErrInvalid)
	}
	if len(query) > holomem.MaxQueryBytes {
		return 0, fmt.Errorf("search text: %w: query is %d bytes; the limit is %d", holomem.ErrInvalid, len(query), holomem.MaxQueryBytes)
	}
	if limit <= 0 {
		limit = holomem.DefaultLimit
	}
	return limit, nil
}

// SearchAllThenAny is SearchText's ranking over a store's full-text
// index: the facts with every term first (query all), then facts with any
// selective term (the query relaxed returns; "" for none) fill the rest.
// run returns up to n hits of a query with their raw scores (higher is
// better), best first. All-term hits score x / max x (the best is 1),
// any-term hits 0.5 * x / max x of their own set, so an all-term hit
// always outranks an any-term hit; ties are broken by id.
func SearchAllThenAny(all string, limit int, run func(q string, n int) ([]holomem.TextMatch, error), relaxed func() (string, error)) ([]holomem.TextMatch, error) {
	hits, err := run(all, limit)
	if err != nil {
		return nil, err
	}
	out := Normalise(hits, 1)
	if len(out) < limit {
		anyQ, err := relaxed()
		if err != nil {
			return nil, err
		}
		if anyQ != "" && anyQ != all {
			seen := make(map[int64]bool, len(out))
			for _, h := range out {
				seen[h.ID] = true
			}
			// Ask for enough to fill the limit after dropping the all-term hits.
			more, err := run(anyQ, limit+len(out))
			if err != nil {
				return nil, err
			}
			more = slices.DeleteFunc(more, func(h holomem.TextMatch) bool { return seen[h.ID] })
			if len(more) > limit-len(out) {
				more = more[:limit-len(out)]
			}
			out = append(out, Normalise(more, 0.5)...)
		}
	}
	SortMatches(out)
	return out, nil
}

// SortMatches orders matches by score, best first, then by id.
func SortMatches(out []holomem.TextMatch) {
	sort.SliceStable(out, func(i, j int) bool {
		if out[i].Score != out[j].Score {
			return out[i].Score > out[j].Score
		}
		return out[i].ID < out[j].ID
	})
}

// Normalise maps raw scores to scale * x / max x. A rank can be ~0 when a
// term is in most documents; then every hit gets scale.
func Normalise(hits []holomem.TextMatch, scale float64) []holomem.TextMatch {
	maxX := 0.0
	for _, h := range hits {
		maxX = max(maxX, h.Score)
	}
	for i := range hits {
		if maxX > 0 {
			hits[i].Score = scale * max(0, hits[i].Score) / maxX
		} else {
			hits[i].Score = scale
		}
	}
	return hits
}

// RankedMatches turns hygiene's per-fact word weights into matches scored
// by their share of total, best first (ties: the newer fact first), at
// most limit.
func RankedMatches(score map[int64]float64, total float64, limit int) []holomem.TextMatch {
	out := make([]holomem.TextMatch, 0, len(score))
	for id, x := range score {
		out = append(out, holomem.TextMatch{ID: id, Score: x / total})
	}
	slices.SortFunc(out, func(a, b holomem.TextMatch) int {
		if c := cmp.Compare(b.Score, a.Score); c != 0 {
			return c
		}
		return cmp.Compare(b.ID, a.ID)
	})
	return out[:min(len(out), limit)]
}
