package sqlite

import (
	"github.com/holomem/holomem"
	"github.com/holomem/holomem/internal/store/sqlstore"
)

// Refs implements sqlstore.WriteTx.
func (w *wtx) Refs() *sqlstore.EdgeRefs { return &w.refs }

// InsertEdge implements sqlstore.WriteTx: an insert that skips an
// existing edge, and then an update of its weight.
func (w *wtx) InsertEdge(e *holomem.Edge, createdAt int64) (bool, error) {
	n, err := w.Exec("INSERT OR IGNORE INTO edges (src, dst, kind, weight, origin, created_at) VALUES (?, ?, ?, ?, ?, ?)",
		e.From, e.To, string(e.Kind), e.Weight, e.Origin, createdAt)
	if err != nil {
		return false, err
	}
	if n == 1 {
		e.CreatedAt = fromNanos(createdAt)
		return true, nil
	}
	// The edge exists: update its weight and report its origin and time.
	var origin string
	var at int64
	err = w.queryRow("UPDATE edges SET weight = ? WHERE src = ? AND dst = ? AND kind = ? RETURNING origin, created_at",
		e.Weight, e.From, e.To, string(e.Kind)).Scan(&origin, &at)
	if err != nil {
		return false, err
	}
	e.Origin, e.CreatedAt = origin, fromNanos(at)
	return false, nil
}
