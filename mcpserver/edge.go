package mcpserver

import (
	"context"

	"github.com/holomem/holomem"
)

// DefaultLinkWeight is the weight of a link when the call does not give one.
const DefaultLinkWeight = 1.0

// LinkInput are the arguments of the link tool.
type LinkInput struct {
	From      int64    `json:"from" jsonschema:"id of the source fact (the cause, or the newer fact)"`
	To        int64    `json:"to" jsonschema:"id of the target fact (the effect)"`
	Kind      string   `json:"kind" jsonschema:"relation: causal (cause -> effect, e.g. issue -> fix), temporal (earlier -> later), similar_to, or your own lower-case kind"`
	Weight    *float64 `json:"weight,omitempty" jsonschema:"strength >= 0 (default 1)"`
	Namespace string   `json:"namespace,omitempty" jsonschema:"memory namespace (default: the server's)"`
}

// LinkOutput reports the stored edge.
type LinkOutput struct {
	Created bool          `json:"created" jsonschema:"false when the edge existed (its weight was updated)"`
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
