package retrieve_test

import (
	"slices"
	"testing"
	"time"

	"github.com/holomem/holomem"
	"github.com/holomem/holomem/internal/testkit/testutil"
	"github.com/holomem/holomem/retrieve"
)

// TestRecall_timeChannel: a question that names a period raises the facts
// that happened in it above equally worded ones from other times, says
// which period it read, and a question that names none is ranked as before.
func TestRecall_timeChannel(t *testing.T) {
	now := time.Date(2024, 3, 14, 12, 0, 0, 0, time.UTC)
	m, _ := testutil.MustOpenMemory(t, retrieve.Options{Now: func() time.Time { return now }})
	ctx := t.Context()
	at := func(y int, mo time.Month, d int) time.Time { return time.Date(y, mo, d, 10, 0, 0, 0, time.UTC) }
	facts := []*holomem.Fact{
		{Content: "We shipped the billing release to production", CreatedAt: at(2023, 12, 5)},
		{Content: "We shipped the billing release to staging", CreatedAt: at(2023, 5, 17)},
		{Content: "We shipped the search release", CreatedAt: at(2024, 3, 13)},
		{Content: "We shipped the mobile release", CreatedAt: at(2022, 5, 2)},
	}
	if _, err := m.Import(ctx, facts); err != nil {
		t.Fatal(err)
	}
	first := func(q string) (int64, *holomem.Result) {
		t.Helper()
		res, err := m.Recall(ctx, holomem.Query{Text: q, Limit: 4})
		if err != nil || len(res.Hits) == 0 {
			t.Fatalf("recall %q: %v %+v", q, err, res)
		}
		return res.Hits[0].Fact.ID, res
	}
	for _, tc := range []struct {
		q    string
		want int64
	}{
		{"what did we ship in May 2023", facts[1].ID},
		{"what did we ship in December 2023", facts[0].ID},
		{"what did we ship yesterday", facts[2].ID},
		{"what did we ship in May", facts[1].ID}, // any May; the later one decays less
		{"billing release в декабре 2023", facts[0].ID},
	} {
		got, res := first(tc.q)
		if got != tc.want {
			t.Errorf("%q: first hit %d, want %d (%+v)", tc.q, got, tc.want, res.Hits)
		}
		if !slices.Contains(res.Channels, holomem.ChannelTime) || res.Weights[holomem.ChannelTime] == 0 {
			t.Errorf("%q: the time channel did not run: channels %v weights %+v", tc.q, res.Channels, res.Weights)
		}
		if !slices.ContainsFunc(res.Notes, func(n string) bool { return len(n) > 5 && n[:5] == "time:" }) {
			t.Errorf("%q: no note says which period was read: %v", tc.q, res.Notes)
		}
	}
	_, res := first("what did we ship")
	if slices.Contains(res.Channels, holomem.ChannelTime) || res.Weights[holomem.ChannelTime] != 0 {
		t.Errorf("a question naming no period ran the time channel: %v %+v", res.Channels, res.Weights)
	}
	for _, h := range res.Hits {
		if h.Scores[holomem.ChannelTime] != 0 {
			t.Errorf("hit %d has a time score %v without a period", h.Fact.ID, h.Scores[holomem.ChannelTime])
		}
	}
}
