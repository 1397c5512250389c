package postgres

import (
	"context"
	"fmt"
	"slices"
	"strings"

	"github.com/jackc/pgx/v5"

	"github.com/holomem/holomem"
	"github.com/holomem/holomem/internal/rowcodec"
)

// ScanHRR calls fn with each fact's HRR vector in the namespace (all
// namespaces when empty), not superseded unless includeSuperseded, in id
// order. fn must not keep v.
func (s *Store) ScanHRR(ctx context.Context, namespace string, includeSuperseded bool, fn func(id int64, v []byte) error) error {
	var a args
	q := "SELECT id, hrr FROM facts WHERE hrr IS NOT NULL"
	if namespace = strings.TrimSpace(namespace); namespace != "" {
		q += " AND namespace = " + a.add(namespace)
	}
	if !includeSuperseded {
		q += " AND superseded_by IS NULL"
	}
	q += " ORDER BY id"
	err := s.read(ctx, func(tx pgx.Tx) error {
		rows, err := tx.Query(ctx, q, a...)
		if err != nil {
			return err
		}
		defer rows.Close()
		var buf []byte
		for rows.Next() {
			var id int64
			if err := rows.Scan(&id, &buf); err != nil {
				return err
			}
			if err := fn(id, buf); err != nil {
				return err
			}
		}
		return rows.Err()
	})
	if err != nil {
		return fmt.Errorf("scan hrr: %w", err)
	}
	return nil
}

// SetEmbeddings stores vectors made by model for the given facts in one
// statement, replacing any vector they had. Ids that no longer exist are
// skipped. Returns ErrInvalid for an empty model id, an empty vector or a
// non-finite value.
func (s *Store) SetEmbeddings(ctx context.Context, model string, vecs map[int64][]float32) error {
	model = strings.TrimSpace(model)
	if model == "" {
		return fmt.Errorf("set embeddings: %w: empty model id", holomem.ErrInvalid)
	}
	ids := make([]int64, 0, len(vecs))
	for id, v := range vecs {
		if len(v) == 0 {
			return fmt.Errorf("set embeddings: %w: empty vector for fact %d", holomem.ErrInvalid, id)
		}
		if err := rowcodec.CheckVector(v); err != nil {
			return fmt.Errorf("set embeddings: fact %d: %w", id, err)
		}
		ids = append(ids, id)
	}
	if len(ids) == 0 {
		return nil
	}
	slices.Sort(ids) // rows are locked in id order: no deadlock between two callers
	blobs := make([][]byte, len(ids))
	for i, id := range ids {
		blobs[i] = rowcodec.EncodeVector(vecs[id])
	}
	err := s.update(ctx, func(w *wtx) error {
		rows, err := w.query(`UPDATE facts f SET model_id = $1, embedding = v.e
			FROM unnest($2::bigint[], $3::bytea[]) AS v(id, e) WHERE f.id = v.id
			RETURNING f.namespace`, model, ids, blobs)
		if err != nil {
			return err
		}
		nss, err := pgx.CollectRows(rows, pgx.RowTo[string])
		for _, ns := range nss {
			w.touch(ns)
		}
		return err
	})
	if err != nil {
		return fmt.Errorf("set embeddings: %w", err)
	}
	return nil
}

// ScanEmbeddings calls fn with every vector of model in the namespace ("" =
// all namespaces), superseded facts included, in id order. fn must not
// keep v.
func (s *Store) ScanEmbeddings(ctx context.Context, namespace, model string, fn func(id int64, v []float32) error) error {
	var a args
	q := "SELECT id, embedding FROM facts WHERE model_id = " + a.add(model) + " AND embedding IS NOT NULL"
	if namespace = strings.TrimSpace(namespace); namespace != "" {
		q += " AND namespace = " + a.add(namespace)
	}
	q += " ORDER BY id"
	err := s.read(ctx, func(tx pgx.Tx) error {
		rows, err := tx.Query(ctx, q, a...)
		if err != nil {
			return err
		}
		defer rows.Close()
		var buf []byte
		var v []float32
		for rows.Next() {
			var id int64
			if err := rows.Scan(&id, &buf); err != nil {
				return err
			}
			if len(buf)%4 != 0 {
				return fmt.Errorf("fact %d: embedding of %d bytes is not a float32 vector", id, len(buf))
			}
			if cap(v) < len(buf)/4 {
				v = make([]float32, len(buf)/4)
			}
			v = v[:len(buf)/4]
			rowcodec.DecodeInto(v, buf)
			if err := fn(id, v); err != nil {
				return err
			}
		}
		return rows.Err()
	})
	if err != nil {
		return fmt.Errorf("scan embeddings: %w", err)
	}
	return nil
}
