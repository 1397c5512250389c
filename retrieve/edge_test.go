package retrieve_test

import (
	"errors"
	"testing"

	"github.com/holomem/holomem"
	"github.com/holomem/holomem/internal/testkit/testutil"
	"github.com/holomem/holomem/retrieve"
)

func TestMemory_Link(t *testing.T) {
	m, s := testutil.MustOpenMemory(t, retrieve.Options{})
	ctx := t.Context()
	a := remember(t, m, "the deploy broke on Friday")
	b := remember(t, m, "we pinned the nginx version")
	other := remember(t, m, "someone else's note", func(f *holomem.Fact) { f.Namespace = "elsewhere" })

	t.Run("OK", func(t *testing.T) {
		e := &holomem.Edge{From: a.ID, To: b.ID, Kind: holomem.EdgeCausal, Weight: 1}
		created, err := m.Link(ctx, holomem.DefaultNamespace, e)
		if err != nil || !created || e.Origin != holomem.OriginUser {
			t.Fatalf("Link = %v, %v (origin %q)", created, err, e.Origin)
		}
		if err := m.Unlink(ctx, holomem.DefaultNamespace, a.ID, b.ID, holomem.EdgeCausal); err != nil {
			t.Fatal(err)
		}
	})
	for _, tt := range []struct {
		name string
		ns   string
		e    holomem.Edge
		want error
	}{
		{"ErrInvalidKind", "", holomem.Edge{From: a.ID, To: b.ID, Kind: "Not A Kind", Weight: 1}, holomem.ErrInvalid},
		{"ErrInvalidIndexOrigin", "", holomem.Edge{From: a.ID, To: b.ID, Kind: holomem.EdgeSimilar, Weight: 1, Origin: holomem.OriginHNSW}, holomem.ErrInvalid},
		{"ErrInvalidSelfLoop", "", holomem.Edge{From: a.ID, To: a.ID, Kind: holomem.EdgeCausal, Weight: 1}, holomem.ErrInvalid},
		{"ErrNotFoundOtherNamespace", holomem.DefaultNamespace, holomem.Edge{From: a.ID, To: other.ID, Kind: holomem.EdgeCausal, Weight: 1}, holomem.ErrNotFound},
		{"ErrNotFoundMissing", "", holomem.Edge{From: a.ID, To: 999, Kind: holomem.EdgeCausal, Weight: 1}, holomem.ErrNotFound},
	} {
		t.Run(tt.name, func(t *testing.T) {
			e := tt.e
			if _, err := m.Link(ctx, tt.ns, &e); !errors.Is(err, tt.want) {
				t.Errorf("Link(%+v) = %v, want %v", tt.e, err, tt.want)
			}
		})
	}
	if es, err := s.FindEdges(ctx, holomem.EdgeFilter{FactID: a.ID}); err != nil || len(es) != 0 {
		t.Errorf("refused links left edges %v (%v)", es, err)
	}
	if err := m.Unlink(ctx, "", a.ID, b.ID, "Not A Kind"); !errors.Is(err, holomem.ErrInvalid) {
		t.Errorf("Unlink(bad kind) = %v, want ErrInvalid", err)
	}
	if err := m.Unlink(ctx, holomem.DefaultNamespace, a.ID, other.ID, holomem.EdgeCausal); !errors.Is(err, holomem.ErrNotFound) {
		t.Errorf("Unlink across namespaces = %v, want ErrNotFound", err)
	}
}
