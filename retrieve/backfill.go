package retrieve

import (
	"context"
	"fmt"

	"github.com/holomem/holomem"
	"github.com/holomem/holomem/hrr"
)

const (
	backfillPage = 256
	embedBatch   = 32
	phaseHRR     = "hrr"
	phaseEmbed   = "embed"
)

// Backfill fills derived data that is missing: HRR vectors (facts written
// by an importer or another tool) and, with an embedder, vectors of the
// current model. Facts whose vector belongs to another model get a new one,
// so Backfill with a new embedder is `reembed`. It is resumable: it only
// touches facts that still lack data, so an interrupted run continues where
// it stopped. It returns how many facts it changed.
func (m *Memory) Backfill(ctx context.Context, progress holomem.Progress) (int, error) {
	if progress == nil {
		progress = func(string, int, int) {}
	}
	n, err := m.backfillHRR(ctx, progress)
	if err != nil || m.emb == nil {
		return n, err
	}
	k, err := m.backfillEmbeddings(ctx, progress)
	return n + k, err
}

func (m *Memory) backfillHRR(ctx context.Context, progress holomem.Progress) (int, error) {
	if m.opts.DisableHRR {
		return 0, nil
	}
	_, total, err := m.store.FindFacts(ctx, holomem.FactFilter{IncludeSuperseded: true, Limit: 1})
	if err != nil {
		return 0, err
	}
	var after int64
	done, changed := 0, 0
	for {
		facts, _, err := m.store.FindFacts(ctx, holomem.FactFilter{AfterID: after, IncludeSuperseded: true, WithHRR: true, Limit: backfillPage})
		if err != nil {
			return changed, fmt.Errorf("backfill hrr: %w", err)
		}
		if len(facts) == 0 {
			break
		}
		for _, f := range facts {
			after = f.ID
			if hrr.Check(f.HRR) == nil {
				continue
			}
			v := m.encodeHRR(ctx, f.Namespace, f.Content)
			if _, err := m.store.UpdateFact(ctx, f.ID, holomem.FactUpdate{HRR: v}); err != nil {
				return changed, fmt.Errorf("backfill hrr of fact %d: %w", f.ID, err)
			}
			if f.SupersededBy == 0 {
				m.hrr.put(f.Namespace, f.ID, v)
			}
			changed++
		}
		done += len(facts)
		progress(phaseHRR, done, total)
		if err := ctx.Err(); err != nil {
			return changed, err
		}
	}
	return changed, nil
}

func (m *Memory) backfillEmbeddings(ctx context.Context, progress holomem.Progress) (int, error) {
	model := m.emb.ModelID()
	filter := holomem.FactFilter{WithoutEmbeddingFor: &model, IncludeSuperseded: true}
	_, total, err := m.store.FindFacts(ctx, holomem.FactFilter{WithoutEmbeddingFor: &model, IncludeSuperseded: true, Limit: 1})
	if err != nil {
		return 0, err
	}
	done := 0
	progress(phaseEmbed, 0, total)
	for {
		filter.Limit = embedBatch
		facts, _, err := m.store.FindFacts(ctx, filter)
		if err != nil {
			return done, fmt.Errorf("backfill embeddings: %w", err)
		}
		if len(facts) == 0 {
			break
		}
		texts := make([]string, len(facts))
		for i, f := range facts {
			texts[i] = stripForEmbedding(f.Content)
		}
		vs, err := m.emb.Embed(ctx, texts)
		if err != nil {
			return done, fmt.Errorf("backfill embeddings: %w", err)
		}
		batch := make(map[int64][]float32, len(facts))
		for i, f := range facts {
			batch[f.ID] = vs[i]
		}
		if err := m.store.SetEmbeddings(ctx, model, batch); err != nil {
			return done, fmt.Errorf("backfill embeddings: %w", err)
		}
		for i, f := range facts {
			m.sem.Upsert(f.Namespace, f.ID, vs[i])
		}
		done += len(facts)
		progress(phaseEmbed, done, total)
		filter.AfterID = facts[len(facts)-1].ID
	}
	return done, nil
}
