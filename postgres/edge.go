package postgres

import (
	"github.com/holomem/holomem"
	"github.com/holomem/holomem/internal/store/sqlstore"
)

// Refs implements sqlstore.WriteTx.
func (w *wtx) Refs() *sqlstore.EdgeRefs { return &w.refs }

// InsertEdge implements sqlstore.WriteTx: one statement inserts or
// updates the weight; xmax = 0 only on a row this statement inserted.
func (w *wtx) InsertEdge(e *holomem.Edge, createdAt int64) (bool, error) {
	var origin string
	var at int64
	var created bool
	err := w.queryRow(`INSERT INTO edges (src, dst, kind, weight, origin, created_at) VALUES ($1, $2, $3, $4, $5, $6)
		ON CONFLICT (src, dst, kind) DO UPDATE SET weight = excluded.weight
		RETURNING origin, created_at, (xmax = 0)`,
		e.From, e.To, string(e.Kind), e.Weight, e.Origin, createdAt).Scan(&origin, &at, &created)
	if err != nil {
		return false, err
	}
	e.Origin, e.CreatedAt = origin, fromNanos(at)
	return created, nil
}
