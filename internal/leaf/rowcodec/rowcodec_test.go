package rowcodec

import (
	"testing"
	"time"

	"github.com/holomem/holomem"
)

// TestSetInjectionPercentiles: the hook's latency percentiles are by
// nearest rank; two runs of 51 and 39 ms showed "p50 51ms, p99 39ms".
func TestSetInjectionPercentiles(t *testing.T) {
	var st holomem.InjectionStats
	SetInjectionPercentiles(&st, []time.Duration{51 * time.Millisecond, 39 * time.Millisecond})
	if st.P50 != 39*time.Millisecond || st.P99 != 51*time.Millisecond {
		t.Errorf("p50 %v, p99 %v; want 39ms, 51ms", st.P50, st.P99)
	}
}
