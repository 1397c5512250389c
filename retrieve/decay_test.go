package retrieve_test

import (
	"math"
	"testing"
	"time"

	"github.com/holomem/holomem"
	"github.com/holomem/holomem/internal/testkit/testutil"
	"github.com/holomem/holomem/retrieve"
)

func TestDecay_BoundedPerCategory(t *testing.T) {
	now := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	day := 24 * time.Hour
	tests := []struct {
		name     string
		opts     retrieve.Options
		category string
		age      time.Duration
		want     float64
	}{
		{"fresh", retrieve.Options{}, "general", 0, 1},
		{"one half-life", retrieve.Options{}, "general", 90 * day, 0.7 + 0.3*0.5},
		{"ancient note keeps the floor", retrieve.Options{}, "general", 3650 * day, 0.7},
		{"commit is history", retrieve.Options{}, "commit", 3 * 365 * day, 0.85},
		{"no floor", retrieve.Options{DecayFloor: -1}, "general", 90 * day, 0.5},
		{"own floor", retrieve.Options{DecayFloor: 0.9}, "general", 90 * day, 0.95},
		{"category off", retrieve.Options{HalfLives: map[string]time.Duration{"pin": -1}}, "pin", 3650 * day, 1},
		{"decay off", retrieve.Options{HalfLife: -1}, "general", 3650 * day, 1},
		// A negative half-life turns decay off for history too, not only
		// for the categories without their own half-life.
		{"decay off for commits", retrieve.Options{HalfLife: -1}, "commit", 3650 * day, 1},
		{"decay off for conversation", retrieve.Options{HalfLife: -24 * time.Hour}, "conversation", 3650 * day, 1},
		{"explicit half-lives stay", retrieve.Options{HalfLife: -1, HalfLives: map[string]time.Duration{"commit": 90 * day}}, "commit", 90 * day, 0.85},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			tc.opts.Now = func() time.Time { return now }
			m, _ := testutil.MustOpenMemory(t, tc.opts)
			ts := now.Add(-tc.age)
			if _, err := m.Import(t.Context(), []*holomem.Fact{{Content: "the cache eviction fix", Category: tc.category, CreatedAt: ts, UpdatedAt: ts}}); err != nil {
				t.Fatal(err)
			}
			res, err := m.Recall(t.Context(), holomem.Query{Text: "cache eviction", NoTouch: true})
			if err != nil || len(res.Hits) != 1 {
				t.Fatalf("recall: %v, %+v", err, res)
			}
			if d := res.Hits[0].Decay; math.Abs(d-tc.want) > 1e-6 {
				t.Errorf("decay = %v, want %v", d, tc.want)
			}
		})
	}
}

func TestDecay_OldExactMatchOutranksFreshNoise(t *testing.T) {
	now := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	for _, cat := range []string{"commit", "general"} {
		t.Run(cat, func(t *testing.T) {
			m, _ := testutil.MustOpenMemory(t, retrieve.Options{Now: func() time.Time { return now }})
			old := now.Add(-400 * 24 * time.Hour)
			facts := []*holomem.Fact{
				{Content: "fix crash when the cache is full", Category: cat, CreatedAt: old, UpdatedAt: old},
				{Content: "bump the cache library version", Category: cat, CreatedAt: now, UpdatedAt: now},
				{Content: "update the readme after the crash report template change", Category: cat, CreatedAt: now, UpdatedAt: now},
			}
			if _, err := m.Import(t.Context(), facts); err != nil {
				t.Fatal(err)
			}
			res, err := m.Recall(t.Context(), holomem.Query{Text: "crash when the cache is full", NoTouch: true})
			if err != nil || len(res.Hits) == 0 {
				t.Fatalf("recall: %v", err)
			}
			if res.Hits[0].Fact.ID != facts[0].ID {
				t.Errorf("top hit %q (score %.3f), want the year-old exact match", res.Hits[0].Fact.Content, res.Hits[0].Score)
			}
		})
	}
}

func TestNew_RejectsBadDecayFloor(t *testing.T) {
	s := testutil.MustOpenStore(t)
	for _, fl := range []float64{1.5, math.NaN()} {
		if _, err := retrieve.New(s, retrieve.Options{DecayFloor: fl}); err == nil {
			t.Errorf("floor %v accepted", fl)
		}
	}
}
