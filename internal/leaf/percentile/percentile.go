// Package percentile computes latency percentiles by nearest rank, the one
// definition every report of holomem uses (doctor, the web UI's status page,
// the benches), so that p99 is never below p50.
package percentile

import (
	"math"
	"slices"
	"time"
)

// Of returns the p-th percentile (0 < p <= 1) of sorted, an ascending
// slice, by nearest rank: the smallest sample with at least p of the
// samples at or below it, s[ceil(p*n)-1]. With fewer than 100 samples the 99th percentile
// is the largest sample. An empty slice gives 0.
//
// The earlier index (n-1)*p/100 truncated: with two samples it gave p50 =
// the larger and p99 = the smaller ("p50 51ms, p99 39ms").
func Of(sorted []time.Duration, p float64) time.Duration {
	n := len(sorted)
	if n == 0 {
		return 0
	}
	i := int(math.Ceil(p*float64(n))) - 1
	return sorted[max(0, min(i, n-1))]
}

// P50P99 sorts samples in place and returns their median and 99th
// percentile by nearest rank (see [Of]).
func P50P99(samples []time.Duration) (p50, p99 time.Duration) {
	slices.Sort(samples)
	return Of(samples, 0.50), Of(samples, 0.99)
}
