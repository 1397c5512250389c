package mcpserver

import (
	"context"

	"github.com/holomem/holomem"
)

// StatusInput are the arguments of the status tool.
type StatusInput struct {
	Namespace string `json:"namespace,omitempty"`
}

// StatusOutput describes the memory.
type StatusOutput struct {
	Version   string `json:"version"`
	Namespace string `json:"namespace"`
	// Model is the embedding model in use ("" when none is configured).
	Model string `json:"model,omitempty"`
	// Channels are the recall channels that run right now.
	Channels []holomem.Channel `json:"channels"`
	Weights  holomem.Weights   `json:"weights"`
	Notes    []string          `json:"notes,omitempty"`
	// Index is the namespace's vector index: how searches run and the last recall canary.
	Index *holomem.IndexStatus `json:"index,omitempty"`
	Stats *holomem.Stats       `json:"stats"`
}

func (s *Server) status(ctx context.Context, in StatusInput) (*StatusOutput, error) {
	st, err := s.mem.Status(ctx, s.namespace(in.Namespace))
	if err != nil {
		return nil, err
	}
	if st.Stats != nil {
		st.Stats.Path = "" // an agent needs no absolute path of the operator's file system
	}
	return &StatusOutput{
		Version: s.opts.Version, Namespace: st.Namespace, Model: st.Model, Channels: nonNil(st.Channels),
		Weights: st.Weights, Notes: st.Notes, Index: st.Index, Stats: st.Stats,
	}, nil
}
