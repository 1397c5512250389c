package retrieve

import (
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/holomem/holomem"
	"github.com/holomem/holomem/sqlite"
)

// A channel is one entry in the table of holomem.Channels and one scorer:
// registered here, in this file only, a "length" channel (shorter facts
// score higher) runs in recall, and its score, weight and name reach the
// hits, the result, the explanations and the JSON every door writes, and
// its name is accepted in a query's weights. That is what adding a
// channel to holomem itself takes (docs/design.md §4.6).
func TestRegisterChannel_flowsEverywhere(t *testing.T) {
	const length holomem.Channel = "length"
	lengthScore := func(f *holomem.Fact) float64 { return 1 / (1 + float64(len(f.Content))/100) }
	unregister, err := registerChannel(holomem.ChannelSpec{Name: length, Weight: 0.5, Doc: "shorter facts score higher"},
		perCandidate(func(_ *recallRun, c *candidate) float64 { return lengthScore(c.fact) }))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(unregister)

	ctx := t.Context()
	s, err := sqlite.Open(ctx, filepath.Join(t.TempDir(), "holomem.db"))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { s.Close() })
	m, err := New(s, Options{})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { m.Close() })
	for _, c := range []string{
		"deploy billing " + strings.Repeat("with many more words about other things ", 12),
		"deploy billing on fridays",
		"deploy billing " + strings.Repeat("and a few more words ", 3),
	} {
		if _, err := m.Remember(ctx, &holomem.Fact{Content: c}); err != nil {
			t.Fatal(err)
		}
	}

	res, err := m.Recall(ctx, holomem.Query{Text: "deploy billing", NoTouch: true})
	if err != nil {
		t.Fatal(err)
	}
	if got, want := res.Channels, []holomem.Channel{"fts", "jaccard", "hrr", length}; !slices.Equal(got, want) {
		t.Errorf("channels = %v, want %v", got, want)
	}
	// The defaults are fts 0.55, hrr 0.15, semantic 0.3 and length 0.5.
	// Without a model semantic's share goes to the others in proportion,
	// and the weights reported sum to 1: length 0.5 of 1.2.
	if w := res.Weights; math.Abs(w[length]-0.5/1.2) > 1e-9 || math.Abs(w.Sum()-1) > 1e-9 {
		t.Errorf("weights = %v, want length 0.5/1.2 of 1", w)
	}
	if len(res.Hits) != 3 {
		t.Fatalf("hits = %d, want 3", len(res.Hits))
	}
	for _, h := range res.Hits {
		if got, want := h.Scores[length], lengthScore(h.Fact); got != want {
			t.Errorf("#%d: length score %v, want %v", h.Fact.ID, got, want)
		}
		if rel := res.Weights.Relevance(h.Scores); math.Abs(rel-h.Relevance) > 1e-12 {
			t.Errorf("#%d: relevance %v, want the weighted sum %v", h.Fact.ID, h.Relevance, rel)
		}
		if ex := h.Scores.Explain(); !strings.HasSuffix(ex, fmt.Sprintf("semantic 0.000  length %.3f", lengthScore(h.Fact))) {
			t.Errorf("explanation %q lacks the length channel", ex)
		}
	}
	if ex := res.Weights.Explain(false); !strings.HasSuffix(ex, " length 0.42") {
		t.Errorf("weights explanation %q lacks length 0.42", ex)
	}
	b, err := json.Marshal(res)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(b), `"semantic":0,"length":0.41666`) || strings.Count(string(b), `"length":`) != 4 {
		t.Errorf("JSON lacks the length channel in weights and scores: %s", b)
	}

	// Weighed alone, the channel ranks: shortest first.
	var q holomem.Query
	if err := json.Unmarshal([]byte(`{"text":"deploy billing","no_touch":true,"weights":{"length":1}}`), &q); err != nil {
		t.Fatal(err)
	}
	res, err = m.Recall(ctx, q)
	if err != nil {
		t.Fatal(err)
	}
	for i := 1; i < len(res.Hits); i++ {
		if len(res.Hits[i-1].Fact.Content) > len(res.Hits[i].Fact.Content) {
			t.Errorf("weights {length: 1}: hit %d is longer than hit %d", i-1, i)
		}
	}

	unregister()
	if err := json.Unmarshal([]byte(`{"weights":{"length":1}}`), &q); !errors.Is(err, holomem.ErrInvalid) {
		t.Errorf("weights of an unregistered channel: err = %v, want ErrInvalid", err)
	}
	res, err = m.Recall(ctx, holomem.Query{Text: "deploy billing", NoTouch: true})
	if err != nil {
		t.Fatal(err)
	}
	if slices.Contains(res.Channels, length) || res.Hits[0].Scores[length] != 0 {
		t.Errorf("unregistered channel still ran: %v", res.Channels)
	}
}
