package postgres

import (
	"context"
	"embed"
	"errors"
	"fmt"
	"io"
	"net"
	"net/url"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"
	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/holomem/holomem"
	"github.com/holomem/holomem/internal/store/sqlstore"
	"github.com/holomem/holomem/text"
)

//go:embed migration/*.sql
var migrationFS embed.FS

// IsAddress reports whether a --db value names a PostgreSQL database
// (postgres:// or postgresql://) rather than an SQLite file.
func IsAddress(s string) bool {
	s = strings.ToLower(strings.TrimSpace(s))
	return strings.HasPrefix(s, "postgres://") || strings.HasPrefix(s, "postgresql://")
}

// Store is a [holomem.Store] on a PostgreSQL database. It is safe for
// concurrent use, by several goroutines and by several processes: writes
// run in READ COMMITTED transactions that resolve duplicates with
// ON CONFLICT and are retried when PostgreSQL reports a serialization
// failure or a deadlock.
type Store struct {
	// Base answers the reads both SQL stores make alike.
	sqlstore.Base

	pool *pgxpool.Pool
	addr string // the address without its password, for messages and Stats
	now  func() time.Time

	mu     sync.Mutex
	closed bool
	// live caches the number of live facts per namespace for the relaxed
	// search's pruning (see selectiveTerms), guarded by mu.
	live map[string]liveCount
	// df caches document frequencies for the same pruning, guarded by mu.
	df map[dfKey]dfEntry

	// schema is the schema the store lives in (current_schema()); change
	// notifications name it, so stores in other schemas ignore them.
	schema string
	// origin identifies this Store in its change notifications, so its
	// listener skips the echoes of its own writes.
	origin string

	// subscribers are called when another process commits a write (see
	// Subscribe); guarded by subMu.
	subMu       sync.Mutex
	subscribers map[int]func(namespace string)
	nextSub     int
	listener    *listener

	// retries counts write transactions run again after a serialization
	// failure, deadlock or vanished foreign key (see Retries).
	retries atomic.Int64
	// bulkWritten counts the facts this Store created in batches (import,
	// copy); Close runs ANALYZE when it reaches analyzeAfter.
	bulkWritten atomic.Int64
	// standbys are the read standbys named by the address (nil: none).
	standbys *standbys
}

// analyzeAfter is how many facts a Store must have created in batches for
// Close to run ANALYZE: after a bulk import or copy the planner's
// estimates would otherwise stay those of the empty tables until
// autovacuum's next pass, and plans chosen on them can scan.
const analyzeAfter = 1000

// Analyze updates the planner's statistics of holomem's tables. Close
// calls it after a bulk write (see analyzeAfter); it takes about a second
// at 100k facts.
func (s *Store) Analyze(ctx context.Context) error {
	if _, err := s.pool.Exec(ctx, "ANALYZE facts, fact_search, fact_counts, fact_entities, entities, entity_aliases, edges"); err != nil {
		return fmt.Errorf("analyze: %w", err)
	}
	return nil
}

// Retries returns how many write transactions this Store ran again because
// PostgreSQL asked for it (serialization failure, deadlock, a row deleted
// concurrently). They never reach callers; the count shows contention.
func (s *Store) Retries() int64 { return s.retries.Load() }

var (
	_ holomem.Store      = (*Store)(nil)
	_ holomem.WordFinder = (*Store)(nil)
)

// Option configures [Open].
type Option func(*options)

type options struct {
	now         func() time.Time
	maxConns    int32
	standbyWait time.Duration
}

// WithStandbyWait sets how long a read waits for a standby to replay this
// process's last write before reading the primary (default
// DefaultStandbyWait). Only addresses with a standby parameter use it.
func WithStandbyWait(d time.Duration) Option {
	return func(o *options) { o.standbyWait = d }
}

// WithClock sets the function the store reads the current time from
// (default time.Now). Tests use it to age facts and edges.
func WithClock(now func() time.Time) Option {
	return func(o *options) { o.now = now }
}

// WithMaxConns sets the size of the connection pool (default 8). A scan
// (ScanHRR, ScanEmbeddings) holds one connection for its whole run.
func WithMaxConns(n int) Option {
	return func(o *options) { o.maxConns = int32(n) }
}

// Open connects to the PostgreSQL database at addr (a postgres:// URL;
// search_path=SCHEMA in its query selects a schema other than public) and
// brings the holomem schema up to date. A schema written by a newer
// holomem, or a schema holding tables of another program under holomem's
// names, gives an error wrapping [holomem.ErrSchema].
func Open(ctx context.Context, addr string, opts ...Option) (*Store, error) {
	o := options{now: time.Now, maxConns: 8, standbyWait: DefaultStandbyWait}
	for _, opt := range opts {
		opt(&o)
	}
	if !IsAddress(addr) {
		return nil, fmt.Errorf("open store: %w: %q is not a postgres:// address", holomem.ErrInvalid, redact(addr))
	}
	addr, standbyAddrs, err := splitStandbys(addr)
	if err != nil {
		return nil, fmt.Errorf("open store: %w", err)
	}
	cfg, err := pgxpool.ParseConfig(addr)
	if err != nil {
		return nil, fmt.Errorf("open store: %w: %s: %v", holomem.ErrInvalid, redact(addr), redactErr(err, addr))
	}
	if o.maxConns > 0 {
		cfg.MaxConns = o.maxConns
	}
	// Statements are prepared once per connection (pgx caches them), but a
	// generic plan cannot see how selective a tsquery or a namespace is and
	// may pick a scan of every fact; planning each execution costs a
	// fraction of a millisecond and keeps the index plans EXPLAIN checks.
	if _, ok := cfg.ConnConfig.RuntimeParams["plan_cache_mode"]; !ok {
		cfg.ConnConfig.RuntimeParams["plan_cache_mode"] = "force_custom_plan"
	}
	pool, err := pgxpool.NewWithConfig(ctx, cfg)
	if err != nil {
		return nil, fmt.Errorf("open store: %s: %w", redact(addr), err)
	}
	s := &Store{pool: pool, addr: redact(addr), now: o.now, live: map[string]liveCount{}, df: map[dfKey]dfEntry{}, origin: newOrigin()}
	s.Base = s.base()
	if err := s.migrate(ctx); err != nil {
		pool.Close()
		return nil, fmt.Errorf("open store: %s: %w", s.addr, err)
	}
	if err := s.syncFTS(ctx); err != nil {
		pool.Close()
		return nil, fmt.Errorf("open store: %s: %w", s.addr, err)
	}
	// Standbys are opened after the migration: they replay it.
	if s.standbys, err = openStandbys(ctx, pool, standbyAddrs, cfg.MaxConns, o.standbyWait); err != nil {
		pool.Close()
		return nil, fmt.Errorf("open store: %w", err)
	}
	s.wrote(ctx) // the schema as migrated
	return s, nil
}

// redact removes the password from a database address.
// Redact returns addr with its password masked, for messages and logs.
func Redact(addr string) string { return redact(addr) }

func redact(addr string) string {
	u, err := url.Parse(addr)
	if err != nil {
		return "postgres://(unparsable address)"
	}
	if u.User != nil {
		if _, ok := u.User.Password(); ok {
			u.User = url.UserPassword(u.User.Username(), "xxxxx")
		}
	}
	q := u.Query()
	if q.Has("password") {
		q.Set("password", "xxxxx")
		u.RawQuery = q.Encode()
	}
	return u.String()
}

// redactErr keeps a parse error from echoing the password.
func redactErr(err error, addr string) string {
	msg := err.Error()
	if u, perr := url.Parse(addr); perr == nil && u.User != nil {
		if p, ok := u.User.Password(); ok && p != "" {
			msg = strings.ReplaceAll(msg, p, "xxxxx")
		}
	}
	return msg
}

var errClosed = errors.New("store is closed")

// Path returns the database address without its password.
func (s *Store) Path() string { return s.addr }

// Pool exposes the connection pool to tests and tools in this module
// (EXPLAIN checks, copy verification). Callers must not close it.
func (s *Store) Pool() *pgxpool.Pool { return s.pool }

// Close stops the change listener and releases the connections.
func (s *Store) Close() error {
	s.mu.Lock()
	if s.closed {
		s.mu.Unlock()
		return nil
	}
	s.closed = true
	s.mu.Unlock()
	s.subMu.Lock()
	l := s.listener
	s.listener = nil
	s.subMu.Unlock()
	if l != nil {
		l.stop()
	}
	var err error
	if s.bulkWritten.Load() >= analyzeAfter {
		ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
		err = s.Analyze(ctx)
		cancel()
	}
	s.pool.Close()
	s.standbys.close()
	return err
}

func (s *Store) isClosed() bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.closed
}

func migrations() ([]sqlstore.Migration, error) { return sqlstore.Migrations(&migrationFS) }

// LatestSchema is the schema version this binary writes.
var LatestSchema = sqlstore.LatestSchema(&migrationFS)

// migrateLockKey names the advisory lock migrations hold. The key is
// derived from the schema too, so stores in different schemas of one
// database do not wait for each other.
const migrateLockSQL = "SELECT pg_advisory_xact_lock(hashtext('holomem.migrate'), hashtext(current_schema()))"

// migrate applies the missing migrations in one transaction under a
// transaction-scoped advisory lock: two processes opening a new database
// at once queue on the lock, and the second finds the schema current.
// PostgreSQL's DDL is transactional, so a failed migration leaves nothing
// behind.
func (s *Store) migrate(ctx context.Context) error {
	ms, err := migrations()
	if err != nil {
		return fmt.Errorf("migrate: %w", err)
	}
	tx, err := s.pool.Begin(ctx)
	if err != nil {
		return fmt.Errorf("migrate: %w", err)
	}
	defer tx.Rollback(context.WithoutCancel(ctx))
	var schema *string
	if err := tx.QueryRow(ctx, "SELECT current_schema()").Scan(&schema); err != nil {
		return fmt.Errorf("migrate: %w", err)
	}
	if schema == nil {
		return fmt.Errorf("migrate: %w: the search_path names no existing schema: create it or fix search_path", holomem.ErrInvalid)
	}
	s.schema = *schema
	if _, err := tx.Exec(ctx, migrateLockSQL); err != nil {
		return fmt.Errorf("migrate: lock: %w", err)
	}
	version, err := readVersion(ctx, tx)
	if err != nil {
		return err
	}
	if version > LatestSchema {
		return newerSchemaError(version)
	}
	if version == LatestSchema {
		return nil
	}
	if version == 0 {
		if _, err := tx.Exec(ctx, "CREATE TABLE holomem_schema (version integer NOT NULL)"); err != nil {
			return fmt.Errorf("migrate: %w", err)
		}
		if _, err := tx.Exec(ctx, "INSERT INTO holomem_schema (version) VALUES (0)"); err != nil {
			return fmt.Errorf("migrate: %w", err)
		}
	}
	for _, m := range ms[version:] {
		sql, err := m.Text()
		if err != nil {
			return fmt.Errorf("migrate: %s: %w", m.Name, err)
		}
		if _, err := tx.Exec(ctx, sql); err != nil {
			return fmt.Errorf("migrate: %s: %w", m.Name, err)
		}
		if _, err := tx.Exec(ctx, "UPDATE holomem_schema SET version = $1", m.Version); err != nil {
			return fmt.Errorf("migrate: %s: %w", m.Name, err)
		}
	}
	if version == 0 {
		// A new schema: its entities will all be derived by this version.
		if _, err := tx.Exec(ctx, "INSERT INTO meta (key, value) VALUES ($1, $2) ON CONFLICT (key) DO NOTHING",
			holomem.MetaEntityFingerprint, text.EntityFingerprint()); err != nil {
			return fmt.Errorf("migrate: %w", err)
		}
	}
	if err := tx.Commit(ctx); err != nil {
		return fmt.Errorf("migrate: %w", err)
	}
	return nil
}

// readVersion returns the schema version of the current schema, 0 when
// holomem never ran there. A schema without holomem_schema but with a
// table named like one of holomem's belongs to another program.
func readVersion(ctx context.Context, q pgx.Tx) (int, error) {
	var has bool
	err := q.QueryRow(ctx, `SELECT EXISTS (SELECT 1 FROM information_schema.tables
		WHERE table_schema = current_schema() AND table_name = 'holomem_schema')`).Scan(&has)
	if err != nil {
		return 0, fmt.Errorf("read schema version: %w", err)
	}
	if !has {
		var other *string
		err := q.QueryRow(ctx, `SELECT min(table_name) FROM information_schema.tables
			WHERE table_schema = current_schema()
			AND table_name IN ('facts', 'entities', 'entity_aliases', 'fact_entities', 'edges', 'meta', 'injections')`).Scan(&other)
		if err != nil {
			return 0, fmt.Errorf("read schema: %w", err)
		}
		if other != nil {
			return 0, fmt.Errorf("%w: not a holomem database (schema has a table %q but no holomem_schema): use another schema (search_path) or database", holomem.ErrSchema, *other)
		}
		return 0, nil
	}
	var v int
	if err := q.QueryRow(ctx, "SELECT version FROM holomem_schema").Scan(&v); err != nil {
		return 0, fmt.Errorf("read schema version: %w", err)
	}
	return v, nil
}

func newerSchemaError(version int) error {
	return fmt.Errorf("%w: written by a newer holomem (schema %d, this binary knows %d): upgrade holomem", holomem.ErrSchema, version, LatestSchema)
}

// SchemaVersion returns the version of the schema in the database.
func (s *Store) SchemaVersion(ctx context.Context) (int, error) {
	var v int
	if err := s.pool.QueryRow(ctx, "SELECT version FROM holomem_schema").Scan(&v); err != nil {
		return 0, fmt.Errorf("schema version: %w", err)
	}
	return v, nil
}

// read runs fn in one read-only REPEATABLE READ transaction: every query
// of fn sees the same snapshot (FindFacts' count and page agree).
// With read standbys it runs on one that holds this process's last write,
// and again on the primary if the standby fails it.
func (s *Store) read(ctx context.Context, fn func(tx pgx.Tx) error) error {
	if s.isClosed() {
		return errClosed
	}
	pool, st := s.reader(ctx)
	err := readTx(ctx, pool, fn)
	if s.standbyFailed(st, err) {
		err = readTx(ctx, s.pool, fn)
	}
	return unavailable(err)
}

// readTx runs fn in one read-only REPEATABLE READ transaction on pool.
func readTx(ctx context.Context, pool *pgxpool.Pool, fn func(tx pgx.Tx) error) error {
	tx, err := pool.BeginTx(ctx, pgx.TxOptions{IsoLevel: pgx.RepeatableRead, AccessMode: pgx.ReadOnly})
	if err != nil {
		return err
	}
	defer tx.Rollback(context.WithoutCancel(ctx))
	if err := fn(tx); err != nil {
		return err
	}
	return tx.Commit(ctx)
}

// Health implements [holomem.HealthChecker]: one round trip to the server.
func (s *Store) Health(ctx context.Context) error {
	if s.isClosed() {
		return errClosed
	}
	if err := s.pool.Ping(ctx); err != nil {
		return fmt.Errorf("ping %s: %w", s.addr, unavailable(err))
	}
	return nil
}

// unavailable marks err with [holomem.ErrUnavailable] when it says the
// server could not be reached or went away (connection refused or lost,
// the server shutting down or starting), so the doors answer "retry"
// instead of "internal error". Other errors pass through.
func unavailable(err error) error {
	if err == nil || errors.Is(err, holomem.ErrUnavailable) {
		return err
	}
	if lost(err) {
		return fmt.Errorf("%w: %w", holomem.ErrUnavailable, err)
	}
	return err
}

// lost reports whether err is a failure to reach the server rather than an
// answer from it.
func lost(err error) bool {
	var pe *pgconn.PgError
	if errors.As(err, &pe) {
		// Class 08: connection exception; 57P01-57P03: admin shutdown,
		// crash shutdown, cannot connect now (starting up, in recovery).
		return strings.HasPrefix(pe.Code, "08") || pe.Code == "57P01" || pe.Code == "57P02" || pe.Code == "57P03"
	}
	var ce *pgconn.ConnectError
	var ne net.Error
	return errors.As(err, &ce) || errors.As(err, &ne) || errors.Is(err, io.EOF) || errors.Is(err, io.ErrUnexpectedEOF) ||
		errors.Is(err, syscall.ECONNREFUSED) || errors.Is(err, syscall.ECONNRESET) || errors.Is(err, syscall.EPIPE) ||
		pgconn.SafeToRetry(err)
}

// readOne runs fn with the pool itself: each statement on a free
// connection in its own implicit transaction. Reads whose statements need
// not share a snapshot use it and save the BEGIN and COMMIT round trips.
func (s *Store) readOne(ctx context.Context, fn func(q querier) error) error {
	if s.isClosed() {
		return errClosed
	}
	pool, st := s.reader(ctx)
	err := fn(pool)
	if s.standbyFailed(st, err) {
		err = fn(s.pool)
	}
	return unavailable(err)
}

// wtx is a write transaction with per-attempt caches.
type wtx struct {
	ctx context.Context
	tx  pgx.Tx
	s   *Store
	now time.Time
	// entities caches entity resolution within the transaction (bulk
	// imports mention the same names over and over).
	entities map[entityCacheKey]entityRef
	// absent caches keys that resolve to no entity (linkEntitiesBulk
	// resolves a batch's names at once); creating an entity or alias
	// removes its key.
	absent map[entityCacheKey]bool
	// unlinked holds the facts a batch stored whose entities are not
	// linked yet: TermFacts leaves them out, as adding the facts one by
	// one would not have stored them yet.
	unlinked map[int64]bool
	// links holds the entity links a batch made that are not written yet
	// (see LinkFact); nil outside linkEntitiesBulk.
	links *linkRows
	// refs caches the facts edges touch (see sqlstore.EdgeRefs).
	refs sqlstore.EdgeRefs
	// changed collects the namespaces the transaction wrote, for the
	// change notification sent with the commit.
	changed map[string]bool
}

type entityCacheKey struct{ namespace, key string }

type entityRef struct {
	id   int64
	name string
}

func (w *wtx) exec(q string, args ...any) (pgconn.CommandTag, error) {
	return w.tx.Exec(w.ctx, q, args...)
}

func (w *wtx) query(q string, args ...any) (pgx.Rows, error) {
	return w.tx.Query(w.ctx, q, args...)
}

func (w *wtx) queryRow(q string, args ...any) pgx.Row {
	return w.tx.QueryRow(w.ctx, q, args...)
}

// touch records that the transaction changed namespace ns ("" = unknown,
// notify everyone).
func (w *wtx) touch(ns string) {
	if w.changed == nil {
		w.changed = map[string]bool{}
	}
	w.changed[ns] = true
}

// maxAttempts bounds how often a write transaction is retried after a
// serialization failure or deadlock.
const maxAttempts = 8

// update runs fn in one READ COMMITTED transaction and commits it,
// retrying from the start (with fresh caches) when PostgreSQL asks for it:
// serialization failure, deadlock, or a foreign key that a concurrent
// transaction removed (an entity pruned while this one linked it). fn must
// be safe to run again.
func (s *Store) update(ctx context.Context, fn func(w *wtx) error) error {
	if s.isClosed() {
		return errClosed
	}
	var err error
	for attempt := range maxAttempts {
		if attempt > 0 {
			// Back off a little, differently per attempt, so two writers
			// that deadlocked do not meet again at once.
			select {
			case <-ctx.Done():
				return ctx.Err()
			case <-time.After(time.Duration(attempt*attempt) * 3 * time.Millisecond):
			}
		}
		w := &wtx{ctx: ctx, s: s, now: s.now()}
		err = s.updateOnce(w, fn)
		if err == nil {
			s.wrote(ctx)
			return nil
		}
		if !retryable(err) {
			return unavailable(err)
		}
		s.retries.Add(1)
	}
	return unavailable(err)
}

func (s *Store) updateOnce(w *wtx, fn func(w *wtx) error) error {
	tx, err := s.pool.Begin(w.ctx)
	if err != nil {
		return err
	}
	defer tx.Rollback(context.WithoutCancel(w.ctx))
	w.tx = tx
	if err := fn(w); err != nil {
		return err
	}
	if err := w.notify(); err != nil {
		return err
	}
	return tx.Commit(w.ctx)
}

// retryable reports whether a failed transaction may succeed when run
// again: PostgreSQL's serialization failure and deadlock (class 40), and
// a foreign key violation, which here only arises when a concurrent
// transaction deleted a row this one was linking (entities are pruned
// when their last fact goes).
func retryable(err error) bool {
	if errors.Is(err, errConcurrentEntity) {
		return true
	}
	var pe *pgconn.PgError
	if !errors.As(err, &pe) {
		return false
	}
	switch pe.Code {
	case "40001", "40P01", "23503":
		return true
	}
	return false
}

// querier is what read helpers need: a read or a write transaction.
type querier interface {
	Query(ctx context.Context, q string, args ...any) (pgx.Rows, error)
	QueryRow(ctx context.Context, q string, args ...any) pgx.Row
}

func nanos(t time.Time) int64 { return t.UnixNano() }

func fromNanos(n int64) time.Time { return time.Unix(0, n).UTC() }

func defaultNamespace(ns string) string {
	ns = strings.TrimSpace(ns)
	if ns == "" {
		return holomem.DefaultNamespace
	}
	return ns
}

// TempSchema creates a new, uniquely named schema in the database at addr
// and returns an address that uses it (search_path) and a function that
// drops it with everything in it. Benchmarks and tools use it to measure
// on a clean slate without touching the schemas in use.
func TempSchema(ctx context.Context, addr, prefix string) (string, func(context.Context) error, error) {
	if !IsAddress(addr) {
		return "", nil, fmt.Errorf("temp schema: %w: %q is not a postgres:// address", holomem.ErrInvalid, redact(addr))
	}
	u, err := url.Parse(addr)
	if err != nil {
		return "", nil, fmt.Errorf("temp schema: %w: %v", holomem.ErrInvalid, redactErr(err, addr))
	}
	name := prefix + "_" + newOrigin()
	primary, _, err := splitStandbys(addr)
	if err != nil {
		return "", nil, fmt.Errorf("temp schema: %w", err)
	}
	run := func(ctx context.Context, sql string) error {
		conn, err := pgx.Connect(ctx, primary)
		if err != nil {
			return err
		}
		defer conn.Close(context.WithoutCancel(ctx))
		_, err = conn.Exec(ctx, sql)
		return err
	}
	// The name is ours (prefix from the caller's code, hex suffix), quoted
	// all the same.
	quoted := pgx.Identifier{name}.Sanitize()
	if err := run(ctx, "CREATE SCHEMA "+quoted); err != nil {
		return "", nil, fmt.Errorf("temp schema: %w", err)
	}
	q := u.Query()
	q.Set("search_path", name)
	u.RawQuery = q.Encode()
	drop := func(ctx context.Context) error { return run(ctx, "DROP SCHEMA "+quoted+" CASCADE") }
	return u.String(), drop, nil
}
