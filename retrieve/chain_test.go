package retrieve_test

import (
	"errors"
	"fmt"
	"slices"
	"testing"

	"github.com/holomem/holomem"
	"github.com/holomem/holomem/internal/testkit/testutil"
	"github.com/holomem/holomem/retrieve"
)

func TestMemory_Chain(t *testing.T) {
	ctx := t.Context()
	m, _ := testutil.MustOpenMemory(t, retrieve.Options{})
	var ids []int64
	for _, c := range []string{"report: login fails", "issue: session cookie expires early", "fix: extend the cookie lifetime", "release 2.1 notes", "unrelated temporal note"} {
		ids = append(ids, remember(t, m, c).ID)
	}
	report, issue, fix, release, other := ids[0], ids[1], ids[2], ids[3], ids[4]
	for _, e := range []holomem.Edge{
		{From: report, To: issue, Kind: holomem.EdgeCausal, Weight: 1},
		{From: issue, To: fix, Kind: holomem.EdgeCausal, Weight: 1},
		{From: fix, To: release, Kind: holomem.EdgeCausal, Weight: 1},
		{From: issue, To: other, Kind: holomem.EdgeTemporal, Weight: 1},
	} {
		if _, err := m.Link(ctx, "", &e); err != nil {
			t.Fatal(err)
		}
	}
	steps, err := m.Chain(ctx, issue, nil, 0)
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, s := range steps {
		got = append(got, fmt.Sprintf("%s %v", s.Direction, s.Path))
	}
	want := []string{
		fmt.Sprintf("backward [%d %d]", issue, report),
		fmt.Sprintf("forward [%d %d]", issue, fix),
		fmt.Sprintf("forward [%d %d %d]", issue, fix, release),
	}
	if !slices.Equal(got, want) {
		t.Errorf("chain = %v, want %v", got, want)
	}
	if steps, err := m.Chain(ctx, issue, nil, 1); err != nil || len(steps) != 2 {
		t.Errorf("chain depth 1 = %d steps, %v", len(steps), err)
	}
	if steps, err := m.Chain(ctx, issue, []holomem.EdgeKind{holomem.EdgeTemporal}, 0); err != nil || len(steps) != 1 || steps[0].Fact.ID != other {
		t.Errorf("temporal chain = %+v, %v", steps, err)
	}
	if _, err := m.Chain(ctx, 999, nil, 0); !errors.Is(err, holomem.ErrNotFound) {
		t.Errorf("chain of a missing fact = %v", err)
	}
}
