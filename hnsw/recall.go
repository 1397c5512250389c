package hnsw

// Recall returns recall@k of approximate results against exact ones: the
// share of ids in exact[i] that also appear in ann[i], summed over all
// queries. k is len(exact[i]). With nothing to find it returns 1. holomem's
// recall canary compares [Graph.Search] with an exact scan on a sample of
// queries and falls back to exact search when this drops.
func Recall(ann, exact [][]int64) float64 {
	found, total := 0, 0
	for i, want := range exact {
		total += len(want)
		if i >= len(ann) {
			continue
		}
		got := make(map[int64]struct{}, len(ann[i]))
		for _, id := range ann[i] {
			got[id] = struct{}{}
		}
		for _, id := range want {
			if _, ok := got[id]; ok {
				found++
			}
		}
	}
	if total == 0 {
		return 1
	}
	return float64(found) / float64(total)
}
