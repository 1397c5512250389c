package sqlite

// The read path: the read pool's prepared statements, read transactions,
// and reads before a write on the write connection.

import (
	"context"
	"database/sql"
	"sync"

	"github.com/holomem/holomem"
)

// maxReadStmts bounds the read statements kept prepared: hot queries are a
// handful; filters built from many optional fields must not grow the cache
// without end.
const maxReadStmts = 64

// readStmt returns q prepared on the read pool, or nil when it cannot be
// (then the caller runs q unprepared). Call it before opening the read
// transaction: preparing takes a pool connection, which a caller holding
// one could wait for forever. Inside the transaction, tx.StmtContext
// reuses the statement on the transaction's connection (database/sql
// prepares it once per connection and keeps it), so the SQL is parsed
// once per connection instead of on every query.
func (s *Store) readStmt(ctx context.Context, q string) *sql.Stmt {
	if v, ok := s.rstmts.Load(q); ok {
		return v.(*sql.Stmt)
	}
	if s.nrstmts.Load() >= maxReadStmts {
		return nil
	}
	st, err := s.rdb.PrepareContext(ctx, q)
	if err != nil {
		return nil
	}
	if v, loaded := s.rstmts.LoadOrStore(q, st); loaded {
		st.Close()
		return v.(*sql.Stmt)
	}
	s.nrstmts.Add(1)
	return st
}

// readStmtIfReady is readStmt for a caller inside a read transaction: it
// never prepares on the pool, because that takes a second connection,
// which callers holding the whole pool would wait for forever (and a
// one-shot process would open only for that). It returns nil when q is
// not prepared yet; the caller runs q unprepared and may call readStmt
// once its transaction is over.
func (s *Store) readStmtIfReady(q string) *sql.Stmt {
	if v, ok := s.rstmts.Load(q); ok {
		return v.(*sql.Stmt)
	}
	return nil
}

// txQuery runs q in tx through its prepared statement st when there is one.
// st is a read pool statement (readStmt); in a read on the write
// connection (readOnWriter) it stands for q's statement there.
func txQuery(ctx context.Context, tx *sql.Tx, st *sql.Stmt, q string, args ...any) (*sql.Rows, error) {
	if st = onTx(tx, st, q); st != nil {
		return tx.StmtContext(ctx, st).QueryContext(ctx, args...)
	}
	return tx.QueryContext(ctx, q, args...)
}

// txQueryRow is txQuery for one row.
func txQueryRow(ctx context.Context, tx *sql.Tx, st *sql.Stmt, q string, args ...any) *sql.Row {
	if st = onTx(tx, st, q); st != nil {
		return tx.StmtContext(ctx, st).QueryRowContext(ctx, args...)
	}
	return tx.QueryRowContext(ctx, q, args...)
}

// writerReads maps each read transaction open on a store's write
// connection (readOnWriter) to its store.
var writerReads sync.Map // *sql.Tx -> *Store

// onTx returns the statement for q that tx can run: st itself, or for a
// read on the write connection, q's statement prepared there (nil until
// the read that first ran q has prepared it: see readOnWriter).
func onTx(tx *sql.Tx, st *sql.Stmt, q string) *sql.Stmt {
	if st == nil {
		return nil
	}
	v, ok := writerReads.Load(tx)
	if !ok {
		return st
	}
	s := v.(*Store)
	if w, ok := s.wrstmts.Load(q); ok {
		return w.(*sql.Stmt)
	}
	s.wpending.Store(q, true)
	return nil
}

// read runs fn in one deferred (snapshot) transaction on a read connection,
// or on the write connection for reads marked with [holomem.ReadsForWrite]
// (see readOnWriter).
func (s *Store) read(ctx context.Context, fn func(tx *sql.Tx) error) error {
	if holomem.IsReadForWrite(ctx) {
		return s.readOnWriter(ctx, fn)
	}
	tx, err := s.rdb.BeginTx(ctx, &sql.TxOptions{ReadOnly: true})
	if err != nil {
		return err
	}
	defer tx.Rollback()
	return fn(tx)
}

// readOnWriter runs fn in a deferred read transaction on the write
// connection, under wmu. In WAL mode a connection empties its page cache
// when it begins a read after another connection committed; the checks
// before an add, run on the read pool, paid that after every add (a tenth
// of an add's CPU at 100k facts, most of it freeing and mapping the
// pages again), while the writer's cache survives its own commits. A
// read-only transaction begins DEFERRED even on this connection, so it
// takes no write lock. Afterwards it prepares, on the same connection,
// the statements the read ran unprepared (see onTx). While a write holds
// the connection it reads from the pool instead.
func (s *Store) readOnWriter(ctx context.Context, fn func(tx *sql.Tx) error) error {
	if !s.wmu.TryLock() {
		// A write is under way: the pool, as if unmarked. Waiting for
		// the writer would queue every read of every concurrent add
		// behind every other's (p99 of adds from 32 connections went
		// from 0.5 to 1.2 s in holomem bench load).
		return s.read(holomem.ReadsForWrite(ctx, false), fn)
	}
	defer s.wmu.Unlock()
	if s.closed {
		return errClosed
	}
	err := func() error {
		tx, err := s.wdb.BeginTx(ctx, &sql.TxOptions{ReadOnly: true})
		if err != nil {
			return err
		}
		defer tx.Rollback()
		writerReads.Store(tx, s)
		defer writerReads.Delete(tx)
		return fn(tx)
	}()
	s.wpending.Range(func(k, _ any) bool {
		q := k.(string)
		s.wpending.Delete(q)
		if s.nrstmts.Load() >= maxReadStmts {
			return true
		}
		if st, perr := s.wdb.PrepareContext(ctx, q); perr == nil {
			if _, dup := s.wrstmts.LoadOrStore(q, st); dup {
				st.Close()
				return true
			}
			s.nrstmts.Add(1)
		}
		return true
	})
	return err
}
