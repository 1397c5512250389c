package eval

import (
	"math"
	"sort"
	"time"
)

// AtK are the cut-off metrics at one k.
type AtK struct {
	K      int     `json:"k"`
	Recall float64 `json:"recall"`
	Hit    float64 `json:"hit"`
	NDCG   float64 `json:"ndcg"`
}

// Metrics are means over N queries.
type Metrics struct {
	N   int     `json:"n"`
	At  []AtK   `json:"at"`
	MRR float64 `json:"mrr"`
}

// RecallAt returns recall@k, or NaN when k was not measured.
func (m Metrics) RecallAt(k int) float64 {
	for _, a := range m.At {
		if a.K == k {
			return a.Recall
		}
	}
	return math.NaN()
}

// NDCGAt returns nDCG@k, or NaN when k was not measured.
func (m Metrics) NDCGAt(k int) float64 {
	for _, a := range m.At {
		if a.K == k {
			return a.NDCG
		}
	}
	return math.NaN()
}

// at returns metric ("recall" or "ndcg") at k.
func (m Metrics) at(metric string, k int) float64 {
	if metric == MetricNDCG {
		return m.NDCGAt(k)
	}
	return m.RecallAt(k)
}

// score computes one query's metrics for the ranked keys; the reciprocal
// rank counts the first gold key within mrrK (0: within the largest k).
// first is that key's 1-based rank within the largest k, 0 when none.
func score(ranked, gold []string, ks []int, mrrK int) (at []AtK, rr float64, first int) {
	g := make(map[string]bool, len(gold))
	for _, k := range gold {
		g[k] = true
	}
	maxK := ks[len(ks)-1]
	if mrrK <= 0 {
		mrrK = maxK
	}
	for i, k := range ranked[:min(maxK, len(ranked))] {
		if g[k] {
			first = i + 1
			if first <= mrrK {
				rr = 1 / float64(first)
			}
			break
		}
	}
	for _, k := range ks {
		found, dcg, idcg := 0, 0.0, 0.0
		for i, key := range ranked[:min(k, len(ranked))] {
			if g[key] {
				found++
				dcg += 1 / math.Log2(float64(i+2))
			}
		}
		for i := range min(k, len(g)) {
			idcg += 1 / math.Log2(float64(i+2))
		}
		a := AtK{K: k, Recall: float64(found) / float64(len(g)), NDCG: dcg / idcg}
		if found > 0 {
			a.Hit = 1
		}
		at = append(at, a)
	}
	return at, rr, first
}

// acc accumulates per-query metrics.
type acc struct {
	n   int
	at  []AtK
	mrr float64
}

func (a *acc) add(at []AtK, rr float64) {
	if a.at == nil {
		a.at = make([]AtK, len(at))
		for i := range at {
			a.at[i].K = at[i].K
		}
	}
	a.n++
	a.mrr += rr
	for i, x := range at {
		a.at[i].Recall += x.Recall
		a.at[i].Hit += x.Hit
		a.at[i].NDCG += x.NDCG
	}
}

func (a *acc) metrics() Metrics {
	m := Metrics{N: a.n}
	if a.n == 0 {
		return m
	}
	n := float64(a.n)
	m.MRR = a.mrr / n
	for _, x := range a.at {
		m.At = append(m.At, AtK{K: x.K, Recall: x.Recall / n, Hit: x.Hit / n, NDCG: x.NDCG / n})
	}
	return m
}

// percentile returns the p-th percentile (0..1) of ds by nearest rank.
func percentile(ds []time.Duration, p float64) time.Duration {
	if len(ds) == 0 {
		return 0
	}
	s := append([]time.Duration(nil), ds...)
	sort.Slice(s, func(i, j int) bool { return s[i] < s[j] })
	i := int(math.Ceil(p*float64(len(s)))) - 1
	return s[max(0, min(i, len(s)-1))]
}
