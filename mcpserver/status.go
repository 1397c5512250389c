package mcpserver

import (
	"context"
	"fmt"

	"github.com/holomem/holomem"
)

// StatusInput are the arguments of the status tool.
type StatusInput struct {
	Namespace string `json:"namespace,omitempty" jsonschema:"memory namespace (default: the server's)"`
}

// StatusOutput describes the memory.
type StatusOutput struct {
	Version   string `json:"version"`
	Namespace string `json:"namespace"`
	// Model is the embedding model in use ("" when none is configured).
	Model string `json:"model,omitempty" jsonschema:"embedding model in use; empty when semantic search is off"`
	// Channels are the recall channels that run right now.
	Channels []holomem.Channel `json:"channels" jsonschema:"recall channels that run now (fts, jaccard, hrr, semantic)"`
	Weights  holomem.Weights   `json:"weights" jsonschema:"channel weights after redistribution"`
	Notes    []string          `json:"notes,omitempty" jsonschema:"degraded modes and how to fix them"`
	Stats    *holomem.Stats    `json:"stats"`
}

// statusProbe is the query status runs (without touching retrieval counts)
// to learn which channels are live: the memory reports them per recall.
const statusProbe = "holomem status"

func (s *Server) status(ctx context.Context, in StatusInput) (*StatusOutput, error) {
	ns := s.namespace(in.Namespace)
	st, err := s.store.Stats(ctx, ns)
	if err != nil {
		return nil, fmt.Errorf("status: %w", err)
	}
	out := &StatusOutput{Version: s.opts.Version, Namespace: ns, Model: s.opts.Model, Stats: st, Channels: []holomem.Channel{}}
	res, err := s.mem.Recall(ctx, holomem.Query{Text: statusProbe, Namespace: ns, Limit: 1, NoTouch: true})
	if err != nil {
		out.Notes = append(out.Notes, "could not probe the recall channels: "+s.toolError("status", err).Error())
		return out, nil
	}
	out.Channels = nonNil(res.Channels)
	out.Weights = res.Weights
	out.Notes = append(out.Notes, res.Notes...)
	return out, nil
}
