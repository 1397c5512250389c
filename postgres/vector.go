package postgres

import (
	"github.com/jackc/pgx/v5"
)

// SetVectors implements sqlstore.WriteTx in one statement.
func (w *wtx) SetVectors(model string, ids []int64, blobs [][]byte) error {
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
}
