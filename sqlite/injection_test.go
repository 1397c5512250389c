package sqlite_test

import (
	"path/filepath"
	"testing"
	"time"

	"github.com/holomem/holomem"
)

func TestStore_LogInjection(t *testing.T) {
	s := mustOpen(t, filepath.Join(t.TempDir(), "holomem.db"))
	ctx := t.Context()
	now := time.Now()
	for i, o := range []string{"injected", "injected", "empty", "timeout", "failed"} {
		inj := holomem.Injection{At: now.Add(time.Duration(i) * time.Second), Outcome: o, Hits: i, Took: time.Duration(i+1) * time.Millisecond}
		if err := s.LogInjection(ctx, inj); err != nil {
			t.Fatal(err)
		}
	}
	old := holomem.Injection{At: now.Add(-48 * time.Hour), Outcome: "injected"}
	if err := s.LogInjection(ctx, old); err != nil {
		t.Fatal(err)
	}
	st, err := s.InjectionStats(ctx, now.Add(-time.Hour))
	if err != nil {
		t.Fatal(err)
	}
	if got, want := st.Total, 5; got != want {
		t.Errorf("total = %d, want %d (the 2-day-old run is outside the window)", got, want)
	}
	if st.Outcomes["injected"] != 2 || st.Outcomes["timeout"] != 1 || st.Outcomes["empty"] != 1 || st.Outcomes["failed"] != 1 {
		t.Errorf("outcomes = %v", st.Outcomes)
	}
	if got, want := st.P50, 3*time.Millisecond; got != want {
		t.Errorf("p50 = %v, want %v", got, want)
	}
}
