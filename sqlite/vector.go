package sqlite

import (
	"context"
	"fmt"

	"github.com/holomem/holomem/internal/rowcodec"
	"github.com/holomem/holomem/internal/sqlstore"
)

// SetEmbeddings stores vectors made by model for the given facts, replacing
// any vector they had (one vector per fact). Ids that no longer exist are
// skipped: a fact forgotten while it was being embedded is not an error.
// Returns ErrInvalid for an empty model id, an empty vector or a
// non-finite value.
func (s *Store) SetEmbeddings(ctx context.Context, model string, vecs map[int64][]float32) error {
	model, ids, err := sqlstore.CheckEmbeddings(model, vecs)
	if err != nil || len(ids) == 0 {
		return err
	}
	err = s.update(ctx, func(w *wtx) error {
		for _, id := range ids {
			if _, err := w.exec("UPDATE facts SET model_id = ?, embedding = ? WHERE id = ?", model, rowcodec.EncodeVector(vecs[id]), id); err != nil {
				return err
			}
		}
		return nil
	})
	if err != nil {
		return fmt.Errorf("set embeddings: %w", err)
	}
	return nil
}
