package percentile

import (
	"testing"
	"time"
)

func ms(xs ...int) []time.Duration {
	out := make([]time.Duration, len(xs))
	for i, x := range xs {
		out[i] = time.Duration(x) * time.Millisecond
	}
	return out
}

// TestP50P99_nearestRank: p99 is never below p50, and with fewer than 100
// samples it is the largest (the hook showed "p50 51ms, p99 39ms").
func TestP50P99_nearestRank(t *testing.T) {
	hundred := make([]int, 100)
	for i := range hundred {
		hundred[i] = i + 1
	}
	twoHundred := make([]int, 200)
	for i := range twoHundred {
		twoHundred[i] = 200 - i
	}
	tests := []struct {
		name     string
		in       []time.Duration
		p50, p99 time.Duration
	}{
		{"empty", nil, 0, 0},
		{"one", ms(7), 7 * time.Millisecond, 7 * time.Millisecond},
		{"two", ms(51, 39), 39 * time.Millisecond, 51 * time.Millisecond},
		{"three", ms(3, 1, 2), 2 * time.Millisecond, 3 * time.Millisecond},
		{"four", ms(4, 3, 2, 1), 2 * time.Millisecond, 4 * time.Millisecond},
		{"hundred", ms(hundred...), 50 * time.Millisecond, 99 * time.Millisecond},
		{"two hundred", ms(twoHundred...), 100 * time.Millisecond, 198 * time.Millisecond},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			p50, p99 := P50P99(tt.in)
			if p50 != tt.p50 || p99 != tt.p99 {
				t.Errorf("P50P99 = %v, %v; want %v, %v", p50, p99, tt.p50, tt.p99)
			}
			if p99 < p50 {
				t.Errorf("p99 %v below p50 %v", p99, p50)
			}
		})
	}
}

func TestOf_largestAtSmallN(t *testing.T) {
	for n := 1; n < 100; n++ {
		s := make([]time.Duration, n)
		for i := range s {
			s[i] = time.Duration(i)
		}
		if got := Of(s, 0.99); got != time.Duration(n-1) {
			t.Fatalf("n=%d: p99 = %v, want the largest %v", n, got, time.Duration(n-1))
		}
	}
}
