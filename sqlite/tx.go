package sqlite

import (
	"context"
	"database/sql"
	"encoding/hex"
	"errors"
	"fmt"
	"strconv"
	"strings"
	"time"

	msqlite "modernc.org/sqlite"

	"github.com/holomem/holomem"
	"github.com/holomem/holomem/internal/store/sqlstore"
)

// wtx is a write transaction. Its statements are prepared on the single
// write connection and reused by every later transaction (bulk imports run
// the same few statements thousands of times). A statement seen for the
// first time runs unprepared and is prepared after the transaction ends,
// because preparing on the pool while the transaction holds its only
// connection would wait forever.
type wtx struct {
	ctx     context.Context
	tx      *sql.Tx
	s       *Store
	now     time.Time
	missing map[string]bool
	// txStmts holds this transaction's view of each statement (see stmt).
	txStmts map[string]*sql.Stmt
	// entities caches entity resolution within the transaction (bulk
	// imports mention the same names over and over), keyed by namespace
	// and entity key. PruneEntities clears it.
	entities map[entityCacheKey]entityRef
	// refs caches the facts edges touch (see sqlstore.EdgeRefs).
	refs sqlstore.EdgeRefs
	// fts holds the full-text rows of the facts created in this
	// transaction until flushFTS writes them (see migration 0007).
	fts []ftsRow
	// link holds what linking entities learned in this transaction (see
	// linkCache in entityterm.go).
	link linkCache
	// linked holds the facts whose entity links this transaction added
	// without writing their row (recurring terms promoted, entities
	// derived again): the change feed has no trigger on link inserts
	// (migration 0008), so flushChanges records them.
	linked []int64
	// dups answers duplicate lookups for the facts CreateFacts stores
	// (see prefetchDups); nil elsewhere.
	dups *dupIndex
}

// flushChanges records the facts of w.linked in the change feed. A new
// or updated fact's links need no row of their own: the trigger on its
// row wrote one.
func (w *wtx) flushChanges() error {
	if len(w.linked) == 0 {
		return nil
	}
	if _, err := w.exec("INSERT INTO fact_changes (fact_id) SELECT value FROM json_each(?)", idList(w.linked)); err != nil {
		return fmt.Errorf("change feed: %w", err)
	}
	w.linked = w.linked[:0]
	return nil
}

// ftsRow is one row of facts_fts: the indexed text of content and tags
// and the scope token.
type ftsRow struct {
	id                   int64
	content, tags, scope string
}

// qInsertFTS adds one full-text row. A single-row insert needs no
// statement savepoint, so FTS5 keeps the batch's terms in memory and
// writes them as one segment at commit.
const qInsertFTS = "INSERT INTO facts_fts (rowid, content, tags, scope) VALUES (?, ?, ?, ?)"

// flushFTS writes the pending full-text rows. Every transaction that
// creates facts calls it before anything else reads or changes their rows
// (updateLocked calls it again before commit).
func (w *wtx) flushFTS() error {
	for i, r := range w.fts {
		if _, err := w.exec(qInsertFTS, r.id, r.content, r.tags, r.scope); err != nil {
			w.fts = w.fts[i:]
			return fmt.Errorf("full-text index: %w", err)
		}
	}
	w.fts = w.fts[:0]
	return nil
}

// liveScope is the scope token of a live fact in namespace, as migration
// 0003's triggers write it: 'l' || hex(namespace).
func liveScope(namespace string) string {
	return "l" + strings.ToUpper(hex.EncodeToString([]byte(namespace)))
}

type entityCacheKey struct{ namespace, key string }

type entityRef struct {
	id   int64
	name string
}

// stmt returns the transaction's view of the prepared statement for q, or
// nil when q is not prepared yet. A statement that is not prepared yet and
// runs a second time in this transaction is prepared on the transaction:
// the first import into a new store runs the same few inserts tens of
// thousands of times, and parsing each was a seventh of its time. Views
// are kept for the transaction (database/sql closes them at its end).
func (w *wtx) stmt(q string) *sql.Stmt {
	if st, ok := w.txStmts[q]; ok {
		return st
	}
	var st *sql.Stmt
	if ps, ok := w.s.stmts[q]; ok {
		st = w.tx.StmtContext(w.ctx, ps)
	} else {
		if !w.missing[q] {
			if w.missing == nil {
				w.missing = make(map[string]bool)
			}
			w.missing[q] = true
			return nil
		}
		var err error
		if st, err = w.tx.PrepareContext(w.ctx, q); err != nil {
			return nil // it keeps running unprepared
		}
	}
	if w.txStmts == nil {
		w.txStmts = make(map[string]*sql.Stmt)
	}
	w.txStmts[q] = st
	return st
}

func (w *wtx) exec(q string, args ...any) (sql.Result, error) {
	if st := w.stmt(q); st != nil {
		return st.ExecContext(w.ctx, args...)
	}
	return w.tx.ExecContext(w.ctx, q, args...)
}

func (w *wtx) query(q string, args ...any) (*sql.Rows, error) {
	if st := w.stmt(q); st != nil {
		return st.QueryContext(w.ctx, args...)
	}
	return w.tx.QueryContext(w.ctx, q, args...)
}

func (w *wtx) queryRow(q string, args ...any) *sql.Row {
	if st := w.stmt(q); st != nil {
		return st.QueryRowContext(w.ctx, args...)
	}
	return w.tx.QueryRowContext(w.ctx, q, args...)
}

// update runs fn in one IMMEDIATE transaction under the write mutex.
func (s *Store) update(ctx context.Context, fn func(w *wtx) error) error {
	s.wmu.Lock()
	defer s.wmu.Unlock()
	if s.closed {
		return errClosed
	}
	if err := s.CheckFile(); err != nil {
		return err
	}
	// The write's own reads go to the read pool: wdb's one connection is
	// this transaction's.
	ctx = holomem.ReadsForWrite(ctx, false)
	w := &wtx{ctx: ctx, s: s, now: s.now()}
	err := s.updateLocked(w, fn)
	s.prepareLocked(w.missing)
	return storageError(err)
}

// storageError marks SQLite's "disk full" (SQLITE_FULL), I/O error and
// read-only failures with [holomem.ErrStorageFull], keeping the original.
func storageError(err error) error {
	if err == nil {
		return nil
	}
	var se *msqlite.Error
	if errors.As(err, &se) {
		switch se.Code() & 0xff {
		case 13, 8, 10: // SQLITE_FULL, SQLITE_READONLY, SQLITE_IOERR
			return fmt.Errorf("%w (%w)", holomem.ErrStorageFull, err)
		}
	}
	if s := err.Error(); strings.Contains(s, "disk is full") || strings.Contains(s, "no space left") || strings.Contains(s, "readonly database") {
		return fmt.Errorf("%w (%w)", holomem.ErrStorageFull, err)
	}
	return err
}

func (s *Store) updateLocked(w *wtx, fn func(w *wtx) error) error {
	tx, err := s.wdb.BeginTx(w.ctx, nil)
	if err != nil {
		return err
	}
	defer tx.Rollback()
	w.tx = tx
	if err := fn(w); err != nil {
		return err
	}
	if err := w.flushFTS(); err != nil {
		return err
	}
	if err := w.flushChanges(); err != nil {
		return err
	}
	return tx.Commit()
}

// prepareLocked prepares the statements a transaction ran unprepared.
// s.wmu must be held and no transaction open. Failures are ignored: the
// statement just keeps running unprepared.
func (s *Store) prepareLocked(qs map[string]bool) {
	for q := range qs {
		st, err := s.wdb.Prepare(q)
		if err != nil {
			continue
		}
		if s.stmts == nil {
			s.stmts = make(map[string]*sql.Stmt)
		}
		s.stmts[q] = st
	}
}

// idList encodes ids (or content hashes) as a JSON array for
// json_each(?), so a list of any length is one bound parameter.
func idList(ids []int64) string {
	var b strings.Builder
	b.Grow(len(ids)*8 + 2)
	b.WriteByte('[')
	for i, id := range ids {
		if i > 0 {
			b.WriteByte(',')
		}
		b.WriteString(strconv.FormatInt(id, 10))
	}
	b.WriteByte(']')
	return b.String()
}

func nanos(t time.Time) int64 { return t.UnixNano() }

func fromNanos(n int64) time.Time { return time.Unix(0, n).UTC() }

// dialect is SQLite's spelling of the statements package sqlstore shares
// with the PostgreSQL store.
var dialect = sqlstore.NewDialect(sqlstore.Dialect{
	InIDs:          func(col string) string { return col + " IN (SELECT value FROM json_each(?))" },
	IDs:            func(ids []int64) any { return idList(ids) },
	NullBytes:      "NULL",
	DistinctFrom:   "IS NOT",
	Substr:         "instr",
	NoLimit:        int64(-1),
	InsertOrIgnore: "INSERT OR IGNORE",
	QSchemaVersion: "PRAGMA user_version",
	QMarkRetrieved: "UPDATE facts SET retrieval_count = retrieval_count + 1 WHERE id IN (SELECT value FROM json_each(?))",
	// The unary + keeps SQLite from using the namespace (or model) index
	// in a vector scan: that plan reads rows out of id order and then
	// sorts 10k+ blobs in a temporary b-tree (measured 95 ms per 10k-fact
	// probe); a scan in rowid order needs no sort.
	InOrder:  "+",
	RawBytes: true,
	// It reads only an index, which recall's "found elsewhere" hint
	// relies on to stay cheap.
	QNamespaces: "SELECT DISTINCT namespace FROM facts ORDER BY namespace",
})

// base gives the shared read methods s's way of reading.
func (s *Store) base() sqlstore.Base {
	read := func(ctx context.Context, prepare []string, fn func(sqlstore.Tx) error) error {
		r := readTx{ctx: ctx, qs: prepare}
		if len(prepare) > 0 {
			r.sts = make([]*sql.Stmt, len(prepare))
			for i, q := range prepare {
				r.sts[i] = s.readStmt(ctx, q)
			}
		}
		return s.read(ctx, func(tx *sql.Tx) error {
			r.tx = tx
			return fn(r)
		})
	}
	return sqlstore.Base{
		Dialect: dialect,
		Read:    read,
		ReadOne: func(ctx context.Context, fn func(sqlstore.Tx) error) error { return read(ctx, nil, fn) },
		Write: func(ctx context.Context, fn func(sqlstore.WriteTx) error) error {
			return s.update(ctx, func(w *wtx) error { return fn(w) })
		},
		Now:  s.now,
		Path: s.path,
		Size: s.size,
	}
}

// readTx is a read transaction as a sqlstore.Tx; the statements qs run
// through their read pool statements sts (see txQuery).
type readTx struct {
	ctx context.Context
	tx  *sql.Tx
	qs  []string
	sts []*sql.Stmt
}

func (r readTx) stmt(q string) *sql.Stmt {
	for i, p := range r.qs {
		if p == q {
			return r.sts[i]
		}
	}
	return nil
}

func (r readTx) Query(q string, args ...any) (sqlstore.ClosingRows, error) {
	return txQuery(r.ctx, r.tx, r.stmt(q), q, args...)
}

func (r readTx) QueryRow(q string, args ...any) sqlstore.Row {
	return txQueryRow(r.ctx, r.tx, r.stmt(q), q, args...)
}

func (r readTx) Exec(q string, args ...any) (int64, error) {
	return rowsAffected(r.tx.ExecContext(r.ctx, q, args...))
}

func rowsAffected(res sql.Result, err error) (int64, error) {
	if err != nil {
		return 0, err
	}
	return res.RowsAffected()
}

// Query, QueryRow and Exec make wtx a sqlstore.Tx.
func (w *wtx) Query(q string, args ...any) (sqlstore.ClosingRows, error) {
	return w.query(q, args...)
}

func (w *wtx) QueryRow(q string, args ...any) sqlstore.Row { return w.queryRow(q, args...) }

func (w *wtx) Exec(q string, args ...any) (int64, error) { return rowsAffected(w.exec(q, args...)) }

// ExecBuilt runs q unprepared: a statement built for one call would
// otherwise stay prepared on the write connection (see stmt).
func (w *wtx) ExecBuilt(q string, args ...any) error {
	_, err := w.tx.ExecContext(w.ctx, q, args...)
	return err
}

// Touch is a no-op: the change feed's triggers record what changed.
func (w *wtx) Touch(string) {}

// Reindex is a no-op: facts_fts's triggers follow the facts row.
func (w *wtx) Reindex(int64, string, string) error { return nil }

// Now is the transaction's time.
func (w *wtx) Now() int64 { return nanos(w.now) }
