package sqlstore

import (
	"context"
	"errors"
	"fmt"

	"github.com/holomem/holomem"
	"github.com/holomem/holomem/internal/leaf/rowcodec"
)

// WriteTx is a store's write transaction as the shared write methods use
// it.
type WriteTx interface {
	Tx
	RelinkTx
	// ExecBuilt runs a statement built for this call (an UPDATE of the
	// columns an edit changes), which the store should not keep prepared.
	ExecBuilt(q string, args ...any) error
	// Touch records that the transaction changed namespace ns.
	Touch(ns string)
	// Reindex writes the full-text row of fact id after its content or
	// tags changed, where no trigger does.
	Reindex(id int64, content, tags string) error
	// Now is the transaction's time in nanoseconds.
	Now() int64
	// SetVectors sets the embedding of facts ids[i] to blobs[i], made by
	// model, skipping ids that do not exist.
	SetVectors(model string, ids []int64, blobs [][]byte) error
	// Refs is the transaction's cache of the facts its edges touch.
	Refs() *EdgeRefs
	// InsertEdge writes e's row created at createdAt, or the weight of
	// the existing one, fills e's Origin and CreatedAt as stored and says
	// whether it is new.
	InsertEdge(e *holomem.Edge, createdAt int64) (bool, error)
}

// UpdateFact applies upd and returns the new fact. Changing the content
// re-derives entities and the full-text index, moves UpdatedAt, and drops
// the embedding (it described the old text) and the HRR vector unless
// upd.HRR brings a new one. Other edits leave UpdatedAt alone. An Anchor
// with an empty Path removes the anchor. Returns ErrNotFound, ErrInvalid,
// or ErrConflict when the new content equals another fact's in the namespace.
func (b *Base) UpdateFact(ctx context.Context, id int64, upd holomem.FactUpdate) (*holomem.Fact, error) {
	if err := upd.Validate(); err != nil {
		return nil, fmt.Errorf("update fact %d: %w", id, err)
	}
	var out *holomem.Fact
	err := b.Write(ctx, func(w WriteTx) error {
		if b.Dialect.Lock != "" {
			// A concurrent edit of the same fact waits, then reads the
			// committed row.
			if _, err := w.Exec("SELECT 1 FROM facts WHERE id = ?"+b.Dialect.Lock, id); err != nil {
				return err
			}
		}
		cur, err := LoadFact(w, b.Dialect, id)
		if err != nil {
			return err
		}
		e, err := EditFact(w, cur, upd, w.Now())
		if err != nil {
			return err
		}
		if e.Update != "" {
			if err := w.ExecBuilt(e.Update, e.Args...); err != nil {
				return err
			}
			w.Touch(cur.Namespace)
		}
		content := cur.Content
		if e.ContentChanged {
			content = *upd.Content
		}
		if e.ContentChanged || e.TagsChanged {
			if err := w.Reindex(id, content, e.Tags); err != nil {
				return err
			}
		}
		if e.ContentChanged {
			if _, err := Relink(w, id, cur.Namespace, content, rowcodec.SplitTags(e.Tags)); err != nil {
				return err
			}
		}
		out, err = LoadFact(w, b.Dialect, id)
		return err
	})
	if err != nil {
		return nil, fmt.Errorf("update fact %d: %w", id, err)
	}
	return out, nil
}

// DeleteFact removes a fact, its entity links and its edges (foreign keys
// cascade), and entities no other fact mentions. Facts it superseded become
// visible again. Returns ErrNotFound.
func (b *Base) DeleteFact(ctx context.Context, id int64) error {
	err := b.Write(ctx, func(w WriteTx) error {
		var ns string
		err := w.QueryRow("SELECT namespace FROM facts WHERE id = ?"+b.Dialect.Lock, id).Scan(&ns)
		if errors.Is(err, ErrNoRows) {
			return fmt.Errorf("fact %d: %w", id, holomem.ErrNotFound)
		}
		if err != nil {
			return err
		}
		old, err := w.UnlinkEntities(id)
		if err != nil {
			return err
		}
		if _, err := w.Exec("DELETE FROM facts WHERE id = ?", id); err != nil {
			return err
		}
		w.Touch(ns)
		return w.PruneEntities(old)
	})
	if err != nil {
		return fmt.Errorf("delete fact: %w", err)
	}
	return nil
}

// RecordFeedback moves trust by one vote ([holomem.ApplyFeedback]) and
// counts it, without touching UpdatedAt. Returns ErrNotFound.
func (b *Base) RecordFeedback(ctx context.Context, id int64, helpful bool) (*holomem.Fact, error) {
	var out *holomem.Fact
	err := b.Write(ctx, func(w WriteTx) error {
		var trust float64
		var ns string
		err := w.QueryRow("SELECT trust, namespace FROM facts WHERE id = ?"+b.Dialect.Lock, id).Scan(&trust, &ns)
		if errors.Is(err, ErrNoRows) {
			return fmt.Errorf("fact %d: %w", id, holomem.ErrNotFound)
		}
		if err != nil {
			return err
		}
		q := "UPDATE facts SET trust = ?, unhelpful_count = unhelpful_count + 1 WHERE id = ?"
		if helpful {
			q = "UPDATE facts SET trust = ?, helpful_count = helpful_count + 1 WHERE id = ?"
		}
		if _, err := w.Exec(q, holomem.ApplyFeedback(trust, helpful), id); err != nil {
			return err
		}
		w.Touch(ns)
		out, err = LoadFact(w, b.Dialect, id)
		return err
	})
	if err != nil {
		return nil, fmt.Errorf("record feedback: %w", err)
	}
	return out, nil
}

// MarkRetrieved adds one to the retrieval count of each fact (once per
// distinct id). Unknown ids are ignored: a fact forgotten between recall and
// this call is not an error.
func (b *Base) MarkRetrieved(ctx context.Context, ids []int64) error {
	if len(ids) == 0 {
		return nil
	}
	err := b.Write(ctx, func(w WriteTx) error {
		_, err := w.Exec(b.Dialect.QMarkRetrieved, b.Dialect.IDs(ids))
		return err
	})
	if err != nil {
		return fmt.Errorf("mark retrieved: %w", err)
	}
	return nil
}

// Supersede records that newer replaces older: a supersedes edge from newer
// to older, and older.SupersededBy = newer, which hides older from recall.
// Both facts must exist (ErrNotFound) and live in the same namespace;
// a fact cannot supersede itself or the fact that supersedes it (ErrInvalid).
func (b *Base) Supersede(ctx context.Context, older, newer int64) error {
	err := b.Write(ctx, func(w WriteTx) error {
		_, err := CreateEdge(w, b.Dialect, &holomem.Edge{From: newer, To: older, Kind: holomem.EdgeSupersedes, Weight: 1, Origin: holomem.OriginUser})
		return err
	})
	if err != nil {
		return fmt.Errorf("supersede %d with %d: %w", older, newer, err)
	}
	return nil
}
