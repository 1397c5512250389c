package postgres

import (
	"testing"
	"time"
)

// TestNextBackoff: failed attempts double the wait up to the maximum, and a
// connection that got to LISTEN starts again from the minimum (the wait
// once doubled on every loss and never came down from 5 s).
func TestNextBackoff(t *testing.T) {
	var got []time.Duration
	var b time.Duration
	for _, listened := range []bool{false, false, false, false, false, false, false, true, false, true, true} {
		b = nextBackoff(b, listened)
		got = append(got, b)
	}
	ms := time.Millisecond
	want := []time.Duration{100 * ms, 200 * ms, 400 * ms, 800 * ms, 1600 * ms, 3200 * ms, 5000 * ms, 100 * ms, 200 * ms, 100 * ms, 100 * ms}
	for i := range want {
		if got[i] != want[i] {
			t.Fatalf("waits %v, want %v", got, want)
		}
	}
}
