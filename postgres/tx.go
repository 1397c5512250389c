package postgres

import (
	"context"
	"database/sql"
	"errors"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"

	"github.com/holomem/holomem/internal/store/sqlstore"
)

// dialect is PostgreSQL's spelling of the statements package sqlstore
// shares with the SQLite store.
var dialect = sqlstore.NewDialect(sqlstore.Dialect{
	InIDs:        func(col string) string { return col + " = ANY(?::bigint[])" },
	IDs:          func(ids []int64) any { return ids },
	NullBytes:    "NULL::bytea",
	DistinctFrom: "IS DISTINCT FROM",
	Substr:       "strpos",
	NoLimit:      nil, // LIMIT NULL
	Lock:         " FOR UPDATE",
	KeyShare:     " FOR KEY SHARE",
	// Rows are locked in id order so two concurrent calls cannot
	// deadlock.
	QMarkRetrieved: `UPDATE facts f SET retrieval_count = f.retrieval_count + 1
		FROM (SELECT id FROM facts WHERE id = ANY(?::bigint[]) ORDER BY id FOR UPDATE) l
		WHERE f.id = l.id`,
	// Names sort by code point, as on SQLite, whatever the database's
	// collation.
	Collate:        ` COLLATE "C"`,
	InsertOrIgnore: "INSERT",
	QSchemaVersion: "SELECT version FROM holomem_schema",
	// The kept counts (migration 0005) answer without reading facts.
	QNamespaces:      qNamespaces,
	OnConflictIgnore: " ON CONFLICT DO NOTHING",
})

// base gives the shared read methods s's way of reading.
func (s *Store) base() sqlstore.Base {
	return sqlstore.Base{
		Dialect: dialect,
		Read: func(ctx context.Context, _ []string, fn func(sqlstore.Tx) error) error {
			return s.read(ctx, func(tx pgx.Tx) error { return fn(pgTx{ctx, tx}) })
		},
		ReadOne: func(ctx context.Context, fn func(sqlstore.Tx) error) error {
			return s.readOne(ctx, func(q querier) error { return fn(pgTx{ctx, q.(execQuerier)}) })
		},
		Write: func(ctx context.Context, fn func(sqlstore.WriteTx) error) error {
			return s.update(ctx, func(w *wtx) error { return fn(w) })
		},
		Now:  s.now,
		Path: s.addr,
		Size: size,
	}
}

// execQuerier is a pgx transaction or the pool.
type execQuerier interface {
	querier
	Exec(ctx context.Context, q string, args ...any) (pgconn.CommandTag, error)
}

// pgTx is a transaction (or the pool) as a sqlstore.Tx: the shared
// statements' ? placeholders become $n, and pgx.ErrNoRows sql.ErrNoRows.
type pgTx struct {
	ctx context.Context
	q   execQuerier
}

func (t pgTx) Query(q string, args ...any) (sqlstore.ClosingRows, error) {
	rows, err := t.q.Query(t.ctx, sqlstore.Rebind(q), args...)
	if err != nil {
		return nil, err
	}
	return pgRows{rows}, nil
}

func (t pgTx) QueryRow(q string, args ...any) sqlstore.Row {
	return pgRow{t.q.QueryRow(t.ctx, sqlstore.Rebind(q), args...)}
}

func (t pgTx) Exec(q string, args ...any) (int64, error) {
	tag, err := t.q.Exec(t.ctx, sqlstore.Rebind(q), args...)
	return tag.RowsAffected(), err
}

type pgRows struct{ pgx.Rows }

func (r pgRows) Close() error {
	r.Rows.Close()
	return nil
}

type pgRow struct{ pgx.Row }

func (r pgRow) Scan(dest ...any) error {
	err := r.Row.Scan(dest...)
	if errors.Is(err, pgx.ErrNoRows) {
		return sql.ErrNoRows
	}
	return err
}

// Query, QueryRow and Exec make wtx a sqlstore.Tx.
func (w *wtx) Query(q string, args ...any) (sqlstore.ClosingRows, error) {
	return pgTx{w.ctx, w.tx}.Query(q, args...)
}

func (w *wtx) QueryRow(q string, args ...any) sqlstore.Row {
	return pgTx{w.ctx, w.tx}.QueryRow(q, args...)
}

func (w *wtx) Exec(q string, args ...any) (int64, error) { return pgTx{w.ctx, w.tx}.Exec(q, args...) }

// ExecBuilt implements sqlstore.WriteTx.
func (w *wtx) ExecBuilt(q string, args ...any) error {
	_, err := w.Exec(q, args...)
	return err
}

// Touch implements sqlstore.WriteTx (see touch).
func (w *wtx) Touch(ns string) { w.touch(ns) }

// Reindex implements sqlstore.WriteTx: the fact's tsvector.
func (w *wtx) Reindex(id int64, content, tags string) error {
	_, err := w.exec("UPDATE fact_search SET fts = $1::tsvector WHERE id = $2", tsvectorText(content, tags), id)
	return err
}

// Now is the transaction's time.
func (w *wtx) Now() int64 { return nanos(w.now) }
