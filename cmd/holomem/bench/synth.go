package bench

import (
	"context"
	"fmt"
	"time"

	"github.com/holomem/holomem"
	"github.com/holomem/holomem/internal/bench/synth"
	"github.com/holomem/holomem/internal/leaf/percentile"
	"github.com/holomem/holomem/retrieve"
	"github.com/holomem/holomem/sqlite"
)

// percentiles returns p50 and p99 of samples (sorted in place).
func percentiles(samples []time.Duration) (p50, p99 time.Duration) {
	if len(samples) == 0 {
		return 0, 0
	}
	return percentile.P50P99(samples)
}

func ms(d time.Duration) string { return fmt.Sprintf("%.3f ms", float64(d.Microseconds())/1000) }

// fillSynthetic creates a store at path with n synthetic facts (no model).
func fillSynthetic(ctx context.Context, path string, n int) error {
	s, err := sqlite.Open(ctx, path)
	if err != nil {
		return err
	}
	defer s.Close()
	m, err := retrieve.New(s, retrieve.Options{})
	if err != nil {
		return err
	}
	return importSynthetic(ctx, m, n)
}

// importSynthetic imports synthetic facts 0..n-1 of seed 1 in batches of
// 1000, each prepared while the one before is written.
func importSynthetic(ctx context.Context, m *retrieve.Memory, n int) error {
	const batch = 1000
	imp := m.ImportBatches(ctx, nil)
	for start := 0; start < n; start += batch {
		facts := make([]*holomem.Fact, 0, batch)
		for i := start; i < min(n, start+batch); i++ {
			facts = append(facts, synth.Fact(1, i))
		}
		if err := imp.Add(facts); err != nil {
			return err
		}
	}
	return imp.Wait()
}
