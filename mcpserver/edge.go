package mcpserver

import (
	"context"

	"github.com/holomem/holomem"
)

// DefaultLinkWeight is the weight of a link when the call does not give one.
const DefaultLinkWeight = 1.0

// LinkInput are the arguments of the link tool.
type LinkInput struct {
	From      int64    `json:"from" jsonschema:"the cause, or the earlier fact"`
	To        int64    `json:"to"`
	Kind      string   `json:"kind" jsonschema:"causal, temporal, similar_to or your own lower-case kind"`
	Weight    *float64 `json:"weight,omitempty" jsonschema:"default 1"`
	Namespace string   `json:"namespace,omitempty"`
}

// LinkOutput reports the stored edge.
type LinkOutput struct {
	Created bool          `json:"created"`
	Edge    *holomem.Edge `json:"edge"`
}

func (s *Server) link(ctx context.Context, in LinkInput) (*LinkOutput, error) {
	ns := s.namespace(in.Namespace)
	w := DefaultLinkWeight
	if in.Weight != nil {
		w = *in.Weight
	}
	e := &holomem.Edge{From: in.From, To: in.To, Kind: holomem.EdgeKind(in.Kind), Weight: w, Origin: holomem.OriginUser}
	created, err := s.mem.Link(ctx, ns, e)
	if err != nil {
		return nil, err
	}
	return &LinkOutput{Created: created, Edge: e}, nil
}
