package postgres

import (
	"context"
	"errors"
	"fmt"

	"github.com/jackc/pgx/v5"

	"github.com/holomem/holomem"
	"github.com/holomem/holomem/internal/leaf/rowcodec"
	"github.com/holomem/holomem/internal/store/sqlstore"
)

func factColumns(withEmbedding, withHRR bool) string {
	return dialect.FactColumns(withEmbedding, withHRR)
}

// attachEntities fills Entities of each fact, in order of appearance.
func attachEntities(ctx context.Context, q execQuerier, fs []*holomem.Fact) error {
	return sqlstore.AttachEntities(pgTx{ctx, q}, dialect, fs)
}

// CreateFact stores f after normalising and validating it, and fills its
// ID, timestamps and entities; see [holomem.Store]. Two processes storing
// the same content at once end with one fact: the second insert meets the
// unique index, does nothing, and loads the first one's fact.
func (s *Store) CreateFact(ctx context.Context, f *holomem.Fact) (bool, error) {
	created, _, err := s.createOne(ctx, f, false)
	return created, err
}

// CreateFactLogged is CreateFact that also returns the feed entry of the
// insert of f's row: the transaction's id with f's; see
// [holomem.OwnChangeFeeder].
func (s *Store) CreateFactLogged(ctx context.Context, f *holomem.Fact) (bool, holomem.FactChange, error) {
	return s.createOne(ctx, f, true)
}

// createOne runs CreateFact; with logged, it reads the transaction's id
// (the xid the feed's trigger recorded) after the insert.
func (s *Store) createOne(ctx context.Context, f *holomem.Fact, logged bool) (bool, holomem.FactChange, error) {
	var (
		created bool
		change  holomem.FactChange
	)
	err := s.update(ctx, func(w *wtx) error {
		change = holomem.FactChange{} // update may retry the transaction
		var err error
		if created, err = w.createFact(f); err != nil || !created || !logged {
			return err
		}
		change.ID = f.ID
		return w.queryRow("SELECT pg_current_xact_id()::text::bigint").Scan(&change.At)
	})
	if err != nil {
		return false, holomem.FactChange{}, fmt.Errorf("create fact: %w", err)
	}
	return created, change, nil
}

// CreateFacts stores many facts in one transaction with the same rules as
// CreateFact. Nothing is stored when one fact is invalid; the error names
// its index.
func (s *Store) CreateFacts(ctx context.Context, fs []*holomem.Fact) ([]bool, error) {
	return s.writeBatch(ctx, func(w *wtx) ([]bool, error) { return w.createFactsBulk(fs) })
}

// writeBatch runs one batch write and counts the facts it created (Close
// runs ANALYZE after enough of them).
func (s *Store) writeBatch(ctx context.Context, write func(w *wtx) ([]bool, error)) ([]bool, error) {
	var created []bool
	err := s.update(ctx, func(w *wtx) error {
		var err error
		created, err = write(w)
		return err
	})
	if err != nil {
		return nil, fmt.Errorf("create facts: %w", err)
	}
	n := 0
	for _, c := range created {
		if c {
			n++
		}
	}
	s.bulkWritten.Add(int64(n))
	return created, nil
}

// existingFact returns the id of the fact f duplicates (same external key;
// for a key-less fact, same content), 0 when none.
func (w *wtx) existingFact(f *holomem.Fact, hash int64) (int64, error) {
	return sqlstore.ExistingFact(w, f, hash)
}

func (w *wtx) createFact(f *holomem.Fact) (bool, error) {
	if err := rowcodec.PrepareFact(f); err != nil {
		return false, err
	}
	hash := rowcodec.ContentHash(f.Content)
	existing, err := w.existingFact(f, hash)
	if err != nil {
		return false, err
	}
	if existing == 0 {
		anchorPath, anchorHash, modelID, emb, hrr := sqlstore.NewFactTimes(f, nanos(w.now))
		tags := rowcodec.JoinTags(f.Tags)
		// ON CONFLICT DO NOTHING: a concurrent transaction that stored the
		// same content or key first wins, and this one loads its fact.
		err := w.queryRow(`INSERT INTO facts (namespace, content, content_hash, category, tags, source, external_key,
			trust, retrieval_count, helpful_count, unhelpful_count, created_at, updated_at,
			anchor_path, anchor_hash, model_id, embedding, hrr)
			VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13, $14, $15, $16, $17, $18)
			ON CONFLICT DO NOTHING RETURNING id`,
			f.Namespace, f.Content, hash, f.Category, tags, f.Source, rowcodec.NullString(f.ExternalKey),
			f.Trust, f.RetrievalCount, f.HelpfulCount, f.UnhelpfulCount, nanos(f.CreatedAt), nanos(f.UpdatedAt),
			anchorPath, anchorHash, modelID, emb, hrr).Scan(&f.ID)
		switch {
		case err == nil:
			f.SupersededBy = 0
			w.touch(f.Namespace)
			if _, err := w.exec("INSERT INTO fact_search (id, namespace, live, fts) VALUES ($1, $2, true, $3::tsvector)",
				f.ID, f.Namespace, tsvectorText(f.Content, tags)); err != nil {
				return false, err
			}
			if f.Entities, err = w.linkEntities(f.ID, f.Namespace, f.Content, f.Tags); err != nil {
				return false, err
			}
			return true, nil
		case !errors.Is(err, pgx.ErrNoRows):
			return false, err
		}
		// Lost a race: the winner committed, and this statement's fresh
		// snapshot sees it.
		if existing, err = w.existingFact(f, hash); err != nil {
			return false, err
		}
		if existing == 0 {
			return false, fmt.Errorf("%w: fact conflicts with a concurrent write", holomem.ErrConflict)
		}
	}
	old, err := sqlstore.LoadFact(w, dialect, existing)
	if err != nil {
		return false, err
	}
	*f = *old
	return false, nil
}
