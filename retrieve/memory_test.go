package retrieve_test

import (
	"errors"
	"fmt"
	"math"
	"slices"
	"testing"
	"time"

	"github.com/holomem/holomem"
	"github.com/holomem/holomem/internal/testkit/testutil"
	"github.com/holomem/holomem/retrieve"
)

func remember(t testing.TB, m *retrieve.Memory, content string, mod ...func(*holomem.Fact)) *holomem.Fact {
	t.Helper()
	f := &holomem.Fact{Content: content}
	for _, fn := range mod {
		fn(f)
	}
	r, err := m.Remember(t.Context(), f)
	if err != nil {
		t.Fatalf("remember %q: %v", content, err)
	}
	return r.Fact
}

func ids(hits []holomem.Hit) []int64 {
	out := make([]int64, len(hits))
	for i, h := range hits {
		out[i] = h.Fact.ID
	}
	return out
}

func TestMemory_Recall(t *testing.T) {
	m, _ := testutil.MustOpenMemory(t, retrieve.Options{})
	nginx := remember(t, m, "We deploy nginx with Ansible on the staging servers")
	remember(t, m, "Alice prefers dark mode in every editor")
	dns := remember(t, m, "DNS configuration lives in Route53")

	t.Run("OK", func(t *testing.T) {
		res, err := m.Recall(t.Context(), holomem.Query{Text: "deploying nginx"})
		if err != nil {
			t.Fatal(err)
		}
		if len(res.Hits) == 0 || res.Hits[0].Fact.ID != nginx.ID {
			t.Fatalf("hits = %v, want #%d first", ids(res.Hits), nginx.ID)
		}
		h := res.Hits[0]
		if h.Scores[holomem.ChannelFTS] <= 0 || h.Scores[holomem.ChannelJaccard] <= 0 || h.Scores[holomem.ChannelHRR] <= 0 {
			t.Errorf("scores = %+v, want fts, jaccard and hrr > 0", h.Scores)
		}
		if got, want := h.Score, h.Relevance*h.Fact.Trust*h.Decay; math.Abs(got-want) > 1e-12 {
			t.Errorf("score = %v, want relevance x trust x decay = %v", got, want)
		}
		if slices.Contains(ids(res.Hits), dns.ID) {
			t.Errorf("unrelated fact #%d recalled", dns.ID)
		}
	})

	t.Run("NoEmbedderRedistributes", func(t *testing.T) {
		res, err := m.Recall(t.Context(), holomem.Query{Text: "nginx"})
		if err != nil {
			t.Fatal(err)
		}
		want := holomem.Weights{holomem.ChannelFTS: 0.55 / 0.7, holomem.ChannelHRR: 0.15 / 0.7}
		if w := res.Weights; math.Abs(w[holomem.ChannelFTS]-want[holomem.ChannelFTS]) > 1e-9 || math.Abs(w[holomem.ChannelHRR]-want[holomem.ChannelHRR]) > 1e-9 || w[holomem.ChannelJaccard] != 0 || w[holomem.ChannelSemantic] != 0 {
			t.Errorf("weights = %+v, want %+v", res.Weights, want)
		}
		if got, want := res.Channels, []holomem.Channel{"fts", "jaccard", "hrr"}; !slices.Equal(got, want) {
			t.Errorf("channels = %v, want %v", got, want)
		}
		if len(res.Notes) == 0 {
			t.Error("no note says the semantic channel is missing")
		}
	})

	t.Run("RetrievalCount", func(t *testing.T) {
		before, _ := m.Store().FindFactByID(t.Context(), nginx.ID)
		if _, err := m.Recall(t.Context(), holomem.Query{Text: "nginx"}); err != nil {
			t.Fatal(err)
		}
		after, _ := m.Store().FindFactByID(t.Context(), nginx.ID)
		if got, want := after.RetrievalCount, before.RetrievalCount+1; got != want {
			t.Errorf("retrieval count = %d, want %d", got, want)
		}
		if _, err := m.Recall(t.Context(), holomem.Query{Text: "nginx", NoTouch: true}); err != nil {
			t.Fatal(err)
		}
		again, _ := m.Store().FindFactByID(t.Context(), nginx.ID)
		if again.RetrievalCount != after.RetrievalCount {
			t.Errorf("NoTouch recall counted a retrieval")
		}
	})

	t.Run("ErrInvalid", func(t *testing.T) {
		for _, q := range []string{"", "   ", "\xff\xfe", string(make([]byte, holomem.MaxQueryBytes+1))} {
			if _, err := m.Recall(t.Context(), holomem.Query{Text: q}); !errors.Is(err, holomem.ErrInvalid) {
				t.Errorf("Recall(%q) err = %v, want ErrInvalid", q, err)
			}
		}
	})

	t.Run("OperatorCharacters", func(t *testing.T) {
		for _, q := range []string{`C++ (foo`, `"`, `-rf`, `NEAR(`, `title:x`, `nginx AND`, `*`, `a OR b NOT c`, `{x y}: z`, `^nginx`} {
			if _, err := m.Recall(t.Context(), holomem.Query{Text: q}); err != nil {
				t.Errorf("Recall(%q): %v", q, err)
			}
		}
	})
}

func TestMemory_Determinism(t *testing.T) {
	m, _ := testutil.MustOpenMemory(t, retrieve.Options{})
	for i := range 20 {
		remember(t, m, fmt.Sprintf("the build cache lives in directory number %d", i))
	}
	q := holomem.Query{Text: "build cache directory", Limit: 20, NoTouch: true}
	first, err := m.Recall(t.Context(), q)
	if err != nil {
		t.Fatal(err)
	}
	for range 3 {
		again, err := m.Recall(t.Context(), q)
		if err != nil {
			t.Fatal(err)
		}
		if !slices.Equal(ids(first.Hits), ids(again.Hits)) {
			t.Fatalf("ranking changed: %v then %v", ids(first.Hits), ids(again.Hits))
		}
	}
	for i := 1; i < len(first.Hits); i++ {
		a, b := first.Hits[i-1], first.Hits[i]
		if a.Score == b.Score && a.Fact.ID > b.Fact.ID {
			t.Errorf("tie not broken by id: #%d before #%d", a.Fact.ID, b.Fact.ID)
		}
	}
}

func TestMemory_TrustAndDecay(t *testing.T) {
	now := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	clock := now
	m, s := testutil.MustOpenMemory(t, retrieve.Options{HalfLife: 10 * 24 * time.Hour, Now: func() time.Time { return clock }})
	f := remember(t, m, "The staging database is Postgres 16")
	ctx := t.Context()

	t.Run("FeedbackClampsAndKeepsDecay", func(t *testing.T) {
		got, err := m.Feedback(ctx, f.ID, true)
		if err != nil {
			t.Fatal(err)
		}
		if math.Abs(got.Trust-0.55) > 1e-9 {
			t.Errorf("trust after helpful = %v, want 0.55", got.Trust)
		}
		if !got.UpdatedAt.Equal(f.UpdatedAt) {
			t.Errorf("feedback moved updated_at from %v to %v: decay must not reset", f.UpdatedAt, got.UpdatedAt)
		}
		for range 20 {
			got, err = m.Feedback(ctx, f.ID, false)
			if err != nil {
				t.Fatal(err)
			}
		}
		if got.Trust != 0 {
			t.Errorf("trust after 20 unhelpful = %v, want 0 (clamped)", got.Trust)
		}
		if got.UnhelpfulCount != 20 || got.HelpfulCount != 1 {
			t.Errorf("counts = %d/%d, want 1/20", got.HelpfulCount, got.UnhelpfulCount)
		}
	})

	t.Run("MinTrust", func(t *testing.T) {
		res, err := m.Recall(ctx, holomem.Query{Text: "staging database"})
		if err != nil {
			t.Fatal(err)
		}
		if len(res.Hits) != 0 {
			t.Errorf("fact with trust 0 recalled with the default min trust")
		}
		zero := 0.0
		res, err = m.Recall(ctx, holomem.Query{Text: "staging database", MinTrust: &zero})
		if err != nil {
			t.Fatal(err)
		}
		if len(res.Hits) != 1 {
			t.Fatalf("min trust 0: %d hits, want 1", len(res.Hits))
		}
	})

	t.Run("Decay", func(t *testing.T) {
		trust := 0.5
		if _, err := s.UpdateFact(ctx, f.ID, holomem.FactUpdate{Trust: &trust}); err != nil {
			t.Fatal(err)
		}
		fresh, _ := s.FindFactByID(ctx, f.ID)
		clock = fresh.UpdatedAt.Add(10 * 24 * time.Hour)
		res, err := m.Recall(ctx, holomem.Query{Text: "staging database"})
		if err != nil || len(res.Hits) != 1 {
			t.Fatalf("recall: %v, %d hits", err, len(res.Hits))
		}
		// The default floor keeps 0.7 of the score: 0.7 + 0.3 x 0.5.
		if d := res.Hits[0].Decay; math.Abs(d-0.85) > 1e-6 {
			t.Errorf("decay after one half-life = %v, want 0.85", d)
		}
	})
}

func TestMemory_Hygiene(t *testing.T) {
	m, _ := testutil.MustOpenMemory(t, retrieve.Options{})
	ctx := t.Context()
	dark := remember(t, m, "Alice prefers dark mode in the editor")

	t.Run("ExactDuplicate", func(t *testing.T) {
		r, err := m.Remember(ctx, &holomem.Fact{Content: "Alice prefers dark mode in the editor"})
		if err != nil {
			t.Fatal(err)
		}
		if r.Created || r.Fact.ID != dark.ID {
			t.Errorf("duplicate: created=%v id=%d, want the existing #%d", r.Created, r.Fact.ID, dark.ID)
		}
	})
	t.Run("NearDuplicate", func(t *testing.T) {
		r, err := m.Remember(ctx, &holomem.Fact{Content: "Alice prefers dark mode in the editor!!"})
		if err != nil {
			t.Fatal(err)
		}
		if !r.Created || len(r.NearDuplicates) == 0 || r.NearDuplicates[0].Fact.ID != dark.ID {
			t.Errorf("near duplicates = %v, want #%d", r.NearDuplicates, dark.ID)
		}
	})
	t.Run("Contradiction", func(t *testing.T) {
		r, err := m.Remember(ctx, &holomem.Fact{Content: "Alice prefers light mode in the terminal"})
		if err != nil {
			t.Fatal(err)
		}
		if len(r.Contradictions) == 0 || r.Contradictions[0].Fact.ID != dark.ID {
			t.Fatalf("contradictions = %v, want #%d", r.Contradictions, dark.ID)
		}
		unrelated, err := m.Remember(ctx, &holomem.Fact{Content: "Bob drinks green tea"})
		if err != nil {
			t.Fatal(err)
		}
		if len(unrelated.Contradictions)+len(unrelated.NearDuplicates) != 0 {
			t.Errorf("unrelated fact flagged: %+v", unrelated)
		}

		// Supersede hides the old fact unless asked.
		if err := m.Supersede(ctx, dark.ID, r.Fact.ID); err != nil {
			t.Fatal(err)
		}
		res, err := m.Recall(ctx, holomem.Query{Text: "Alice prefers dark mode"})
		if err != nil {
			t.Fatal(err)
		}
		if slices.Contains(ids(res.Hits), dark.ID) {
			t.Errorf("superseded fact #%d still recalled", dark.ID)
		}
		res, err = m.Recall(ctx, holomem.Query{Text: "Alice prefers dark mode", IncludeSuperseded: true})
		if err != nil {
			t.Fatal(err)
		}
		if !slices.Contains(ids(res.Hits), dark.ID) {
			t.Errorf("IncludeSuperseded did not return #%d", dark.ID)
		}
	})
}

func TestMemory_UpdateForget(t *testing.T) {
	m, _ := testutil.MustOpenMemory(t, retrieve.Options{})
	ctx := t.Context()
	f := remember(t, m, "The CI runs on Jenkins")
	content := "The CI runs on Buildkite"
	got, err := m.Update(ctx, f.ID, holomem.FactUpdate{Content: &content})
	if err != nil {
		t.Fatal(err)
	}
	if got.Content != content {
		t.Errorf("content = %q", got.Content)
	}
	hits, err := m.Probe(ctx, "", "Buildkite", 10)
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Contains(ids(hits), f.ID) {
		t.Errorf("probe after update misses #%d: the HRR vector was not re-derived", f.ID)
	}
	if hits, _ := m.Probe(ctx, "", "Jenkins", 10); len(hits) != 0 {
		t.Errorf("probe(Jenkins) after update = %v, want none", ids(hits))
	}
	if err := m.Forget(ctx, f.ID); err != nil {
		t.Fatal(err)
	}
	if err := m.Forget(ctx, f.ID); !errors.Is(err, holomem.ErrNotFound) {
		t.Errorf("second forget err = %v, want ErrNotFound", err)
	}
	if _, err := m.Feedback(ctx, 999999, true); !errors.Is(err, holomem.ErrNotFound) {
		t.Errorf("feedback on unknown id err = %v, want ErrNotFound", err)
	}
}

func TestMemory_Aliases(t *testing.T) {
	m, _ := testutil.MustOpenMemory(t, retrieve.Options{})
	ctx := t.Context()
	a := remember(t, m, "Robert Paulson aka Bob runs the night shift")
	b := remember(t, m, "Bob likes green tea")
	remember(t, m, "Marla likes coffee")
	for _, name := range []string{"Robert Paulson", "bob", "BOB"} {
		hits, err := m.Probe(ctx, "", name, 10)
		if err != nil {
			t.Fatal(err)
		}
		got := ids(hits)
		slices.Sort(got)
		if !slices.Equal(got, []int64{a.ID, b.ID}) {
			t.Errorf("probe(%q) = %v, want [%d %d]: the alias must resolve to one entity", name, got, a.ID, b.ID)
		}
	}
}

// TestMemory_HygieneCommonWords checks that the write-time checks still
// find an old fact when every word it shares with the new one is in more
// facts than the candidate search reads per word (200), and the newest
// facts about its entity are all others.
func TestMemory_HygieneCommonWords(t *testing.T) {
	m, _ := testutil.MustOpenMemory(t, retrieve.Options{})
	ctx := t.Context()
	seven := remember(t, m, "Zephyr keeps the orbital cache with 7 replicas")
	note := remember(t, m, "Zephyr cluster replicas note")
	var filler []*holomem.Fact
	for i := range 250 {
		filler = append(filler, &holomem.Fact{Content: fmt.Sprintf("Zephyr cluster replicas note number %d about the cache", i)})
	}
	if _, err := m.Import(ctx, filler); err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name, content string
		want          int64
		contradiction bool
	}{
		{"RareWordContradiction", "Zephyr keeps the orbital cache with 8 replicas", seven.ID, true},
		{"AllWordsCommonDuplicate", "Zephyr cluster replicas note!", note.ID, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r, err := m.Remember(ctx, &holomem.Fact{Content: tt.content})
			if err != nil {
				t.Fatal(err)
			}
			got := r.NearDuplicates
			if tt.contradiction {
				got = r.Contradictions
			}
			if !slices.Contains(ids(got), tt.want) {
				t.Errorf("Remember(%q): near-duplicates %v, contradictions %v; want #%d among the %s", tt.content,
					ids(r.NearDuplicates), ids(r.Contradictions), tt.want, map[bool]string{true: "contradictions", false: "near-duplicates"}[tt.contradiction])
			}
		})
	}
}
