package retrieve

import (
	"context"
	"fmt"

	"github.com/holomem/holomem"
)

// Status implements [holomem.Memory.Status] from the configuration and the
// index, without running a query. With a model it loads the vector index
// if it is not loaded yet.
func (m *Memory) Status(ctx context.Context, namespace string) (*holomem.Status, error) {
	if err := allow(ctx, namespace, false); err != nil {
		return nil, err
	}
	st, err := m.store.Stats(ctx, namespace)
	if err != nil {
		return nil, fmt.Errorf("status: %w", err)
	}
	out := &holomem.Status{
		Namespace: namespace,
		Channels:  m.Channels(),
		Weights:   m.opts.Weights.Redistribute(m.emb != nil, !m.opts.DisableHRR).Everyday(),
		Stats:     st,
	}
	if m.emb == nil {
		out.Notes = append(out.Notes, noEmbedderNote)
		return out, nil
	}
	out.Model = m.emb.ModelID()
	idx, err := m.sem.Status(ctx)
	if err != nil {
		return nil, fmt.Errorf("status: %w", err)
	}
	for i := range idx {
		if idx[i].Namespace == namespace {
			out.Index = &idx[i]
			out.Notes = append(out.Notes, idx[i].Notes...)
		}
	}
	return out, nil
}
