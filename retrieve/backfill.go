package retrieve

import (
	"bytes"
	"context"
	"fmt"
	"strconv"
	"strings"

	"github.com/holomem/holomem"
	"github.com/holomem/holomem/hrr"
	"github.com/holomem/holomem/text"
)

const (
	backfillPage = 256
	embedBatch   = 32
	phaseHRR     = "hrr"
	phaseEmbed   = "embed"
	phaseEntity  = "entities"
	relinkPage   = 500
)

// Meta keys of the entity backfill: the text.EntityFingerprint the
// entities were last derived with, and the last fact id an interrupted
// derivation reached.
const (
	metaEntityFingerprint = holomem.MetaEntityFingerprint
	metaEntityRelinkAfter = "entities.relink_after"
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
	if err := m.backfillEntities(ctx, progress); err != nil {
		return 0, err
	}
	n, err := m.backfillHRR(ctx, progress)
	if err != nil || m.emb == nil {
		return n, err
	}
	k, err := m.backfillEmbeddings(ctx, progress)
	return n + k, err
}

// backfillEntities derives every fact's entities again when entity
// extraction changed since they were derived (lower-case terms that recur
// become entities, Russian name forms share a key), in pages of
// relinkPage facts, one transaction each, keeping its place in the meta
// table so an interrupted run resumes. Entities are no fact's data, so
// Backfill does not count these facts as changed.
func (m *Memory) backfillEntities(ctx context.Context, progress holomem.Progress) error {
	rl, ok := holomem.As[holomem.EntityRelinker](m.store)
	if !ok {
		return nil
	}
	want := text.EntityFingerprint()
	if got, err := m.store.Meta(ctx, metaEntityFingerprint); err == nil && got == want {
		return nil
	}
	var after int64
	if v, err := m.store.Meta(ctx, metaEntityRelinkAfter); err == nil {
		if fp, id, ok := strings.Cut(v, ":"); ok && fp == want {
			after, _ = strconv.ParseInt(id, 10, 64)
		}
	}
	_, total, err := m.store.FindFacts(ctx, holomem.FactFilter{IncludeSuperseded: true, Limit: 1})
	if err != nil {
		return fmt.Errorf("backfill entities: %w", err)
	}
	done := 0 // facts gone over in this run (a resumed run starts at 0)
	for {
		last, err := rl.RelinkEntities(ctx, after, relinkPage)
		if err != nil {
			return fmt.Errorf("backfill entities (run it again to resume): %w", err)
		}
		if last == 0 {
			break
		}
		if err := m.reencodeHRR(ctx, after, last); err != nil {
			return fmt.Errorf("backfill entities (run it again to resume): %w", err)
		}
		done = min(total, done+relinkPage)
		after = last
		if err := m.store.SetMeta(ctx, metaEntityRelinkAfter, want+":"+strconv.FormatInt(after, 10)); err != nil {
			return fmt.Errorf("backfill entities: %w", err)
		}
		progress(phaseEntity, done, total)
		if err := ctx.Err(); err != nil {
			return err
		}
	}
	if err := m.store.SetMeta(ctx, metaEntityFingerprint, want); err != nil {
		return fmt.Errorf("backfill entities: %w", err)
	}
	m.mu.Lock()
	clear(m.mu.aliases)
	m.mu.Unlock()
	return nil
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

// reencodeHRR gives the facts with ids in (after, last] the HRR vector the
// current entity extraction makes, where it differs from the stored one
// (probe and related read entities from the vectors).
func (m *Memory) reencodeHRR(ctx context.Context, after, last int64) error {
	if m.opts.DisableHRR {
		return nil
	}
	facts, _, err := m.store.FindFacts(ctx, holomem.FactFilter{AfterID: after, IncludeSuperseded: true, WithHRR: true, Limit: relinkPage})
	if err != nil {
		return err
	}
	for _, f := range facts {
		if f.ID > last {
			break
		}
		if len(f.HRR) == 0 {
			continue // backfillHRR fills it
		}
		v := m.encodeHRR(ctx, f.Namespace, f.Content)
		if bytes.Equal(v, f.HRR) {
			continue
		}
		if _, err := m.store.UpdateFact(ctx, f.ID, holomem.FactUpdate{HRR: v}); err != nil {
			return fmt.Errorf("hrr of fact %d: %w", f.ID, err)
		}
		if f.SupersededBy == 0 {
			m.hrr.put(f.Namespace, f.ID, v)
		}
	}
	return nil
}
