package holomem_test

import (
	"errors"
	"testing"

	"github.com/holomem/holomem"
)

func TestEdge_ValidateLink(t *testing.T) {
	for _, tt := range []struct {
		name string
		e    holomem.Edge
		want error
	}{
		{"OK", holomem.Edge{From: 1, To: 2, Kind: holomem.EdgeCausal, Weight: 1, Origin: holomem.OriginUser}, nil},
		{"OKSimilarByUser", holomem.Edge{From: 1, To: 2, Kind: holomem.EdgeSimilar, Weight: 0.5, Origin: holomem.OriginUser}, nil},
		{"OKOwnKind", holomem.Edge{From: 1, To: 2, Kind: "hnsw_like", Weight: 1}, nil},
		{"ErrInvalidIndexOrigin", holomem.Edge{From: 1, To: 2, Kind: holomem.EdgeSimilar, Weight: 1, Origin: holomem.OriginHNSW}, holomem.ErrInvalid},
		{"ErrInvalidShape", holomem.Edge{From: 1, To: 1, Kind: holomem.EdgeCausal, Weight: 1}, holomem.ErrInvalid},
	} {
		t.Run(tt.name, func(t *testing.T) {
			if err := tt.e.ValidateLink(); !errors.Is(err, tt.want) || (tt.want == nil && err != nil) {
				t.Errorf("ValidateLink(%+v) = %v, want %v", tt.e, err, tt.want)
			}
		})
	}
	if err := holomem.ValidateUnlink("Not A Kind"); !errors.Is(err, holomem.ErrInvalid) {
		t.Errorf("ValidateUnlink(bad kind) = %v", err)
	}
	if err := holomem.ValidateUnlink(holomem.EdgeSimilar); err != nil {
		t.Errorf("ValidateUnlink(similar_to) = %v", err)
	}
}

func TestShowEdge(t *testing.T) {
	similar := []holomem.EdgeKind{holomem.EdgeSimilar}
	for _, tt := range []struct {
		name  string
		e     holomem.Edge
		kinds []holomem.EdgeKind
		want  bool
	}{
		{"UserEdge", holomem.Edge{Kind: holomem.EdgeCausal, Origin: holomem.OriginUser}, nil, true},
		{"ImportedSimilar", holomem.Edge{Kind: holomem.EdgeSimilar, Origin: holomem.OriginImport}, nil, true},
		{"IndexSimilarUnasked", holomem.Edge{Kind: holomem.EdgeSimilar, Origin: holomem.OriginHNSW}, nil, false},
		{"IndexSimilarOtherKindAsked", holomem.Edge{Kind: holomem.EdgeSimilar, Origin: holomem.OriginHNSW}, []holomem.EdgeKind{holomem.EdgeCausal}, false},
		{"IndexSimilarAsked", holomem.Edge{Kind: holomem.EdgeSimilar, Origin: holomem.OriginHNSW}, similar, true},
	} {
		t.Run(tt.name, func(t *testing.T) {
			if got := holomem.ShowEdge(&tt.e, tt.kinds); got != tt.want {
				t.Errorf("ShowEdge(%+v, %v) = %v, want %v", tt.e, tt.kinds, got, tt.want)
			}
		})
	}
}
