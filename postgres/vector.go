package postgres

import (
	"context"
	"fmt"

	"github.com/jackc/pgx/v5"

	"github.com/holomem/holomem/internal/rowcodec"
	"github.com/holomem/holomem/internal/sqlstore"
)

// SetEmbeddings stores vectors made by model for the given facts in one
// statement, replacing any vector they had. Ids that no longer exist are
// skipped. Returns ErrInvalid for an empty model id, an empty vector or a
// non-finite value.
func (s *Store) SetEmbeddings(ctx context.Context, model string, vecs map[int64][]float32) error {
	model, ids, err := sqlstore.CheckEmbeddings(model, vecs)
	if err != nil || len(ids) == 0 {
		return err
	}
	blobs := make([][]byte, len(ids))
	for i, id := range ids {
		blobs[i] = rowcodec.EncodeVector(vecs[id])
	}
	err = s.update(ctx, func(w *wtx) error {
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
