package sqlite

import (
	"bytes"
	"context"
	"database/sql"
	"database/sql/driver"
	"embed"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"math/rand/v2"
	"net/url"
	"os"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	msqlite "modernc.org/sqlite"

	"github.com/holomem/holomem"
	"github.com/holomem/holomem/internal/store/sqlstore"
	"github.com/holomem/holomem/text"
)

//go:embed migration/*.sql
var migrationFS embed.FS

// applicationID marks a holomem database in the SQLite header
// (PRAGMA application_id): "holo" in ASCII.
const applicationID = 0x686f6c6f

// ftsFunc is the SQL function the full-text triggers call to derive the
// indexed text (tokens plus stems) from content and tags.
const ftsFunc = "holomem_fts"

// ftsByStoreFunc tells the full-text insert trigger that the store writes
// the row itself (see migration 0007); it always returns 1.
const ftsByStoreFunc = "holomem_fts_by_store"

var registerOnce sync.Once

// registerFunctions adds holomem_fts and holomem_fts_by_store to every connection of the "sqlite"
// driver. modernc registers functions on the driver, not on one database,
// and refuses a second registration of the same name, hence the Once.
func registerFunctions() {
	registerOnce.Do(func() {
		msqlite.MustRegisterDeterministicScalarFunction(ftsFunc, 1, func(_ *msqlite.FunctionContext, args []driver.Value) (driver.Value, error) {
			switch v := args[0].(type) {
			case nil:
				return "", nil
			case string:
				return indexText(v), nil
			case []byte:
				return indexText(string(v)), nil
			default:
				return "", nil
			}
		})
		msqlite.MustRegisterDeterministicScalarFunction(ftsByStoreFunc, 0, func(*msqlite.FunctionContext, []driver.Value) (driver.Value, error) {
			return int64(1), nil
		})
	})
}

// Store is a [holomem.Store] on one SQLite file. It is safe for concurrent
// use: reads run in parallel on a pool of connections, writes are serialised
// by a mutex on one connection and use BEGIN IMMEDIATE, so another process
// writing the same file makes them wait (up to the busy timeout) instead of
// failing.
type Store struct {
	// Base answers the reads both SQL stores make alike.
	sqlstore.Base

	path string
	now  func() time.Time
	// ident is the file opened (os.Stat at open); abs its absolute path.
	// A write first checks that the path still names that file (see
	// CheckFile); nil for a read-only store.
	ident os.FileInfo
	abs   string

	// wmu allows one write transaction at a time in this process.
	wmu sync.Mutex
	// wdb has one connection, used only under wmu, with _txlock=immediate.
	wdb *sql.DB
	// stmts are prepared statements on wdb, guarded by wmu.
	stmts map[string]*sql.Stmt
	// closed is set by Close, guarded by wmu.
	closed bool
	// bulkCache is set, under wmu, once the write connection's page cache
	// was grown for bulk writes (see growWriteCache).
	bulkCache bool
	// rdb is the pool of read connections (deferred transactions).
	rdb *sql.DB
	// rstmts caches statements prepared on rdb (query -> *sql.Stmt); see
	// readStmt.
	rstmts sync.Map
	// wrstmts caches read statements prepared on wdb (query ->
	// *sql.Stmt), for reads marked with holomem.ReadsForWrite; wpending
	// holds the queries such reads ran unprepared, prepared after the
	// read under wmu (see onTx and readOnWriter).
	wrstmts, wpending sync.Map
	// dfc caches TermStats' document counts (see termDocsCache).
	dfc termDocsCache
	// ents caches EntitiesOf per fact (see entitiesCache).
	ents entitiesCache
	// release gives back the file's place in held, after Close.
	release func()
	// nrstmts counts rstmts entries (bounded by maxReadStmts).
	nrstmts atomic.Int32
	// common remembers the words SimilarFacts found too common to use.
	common commonTerms
}

var (
	_ holomem.Store      = (*Store)(nil)
	_ holomem.WordFinder = (*Store)(nil)
)

// Option configures [Open].
type Option func(*options)

type options struct {
	now         func() time.Time
	busyTimeout time.Duration
	readConns   int
	single      bool
	cachePages  int
}

// WithClock sets the function the store reads the current time from
// (default time.Now). Tests use it to age facts and edges.
func WithClock(now func() time.Time) Option {
	return func(o *options) { o.now = now }
}

// WithBusyTimeout sets how long a write waits for another process's write
// transaction to finish before it fails (default [DefaultBusyTimeout]).
func WithBusyTimeout(d time.Duration) Option {
	return func(o *options) { o.busyTimeout = d }
}

// WithReadConns sets the number of read connections (default: the number
// of CPUs, at least 4). A scan (ScanHRR, ScanEmbeddings) holds one for its
// whole run, so a callback that reads the store needs a spare one.
func WithReadConns(n int) Option {
	return func(o *options) { o.readConns = n }
}

// WithOneConnection makes the store read and write through one
// connection, for one-shot processes that read a little and write once
// (recall and the prompt hook record what they returned): every
// connection parses the schema and allocates its own caches (a second one
// cost the hook ~55 page faults and a schema parse). Reads run one at a
// time, and ScanHRR and ScanEmbeddings callbacks must not read the store.
func WithOneConnection() Option {
	return func(o *options) { o.single = true }
}

// WithPageCache sets each connection's SQLite page cache to pages pages
// (default: SQLite's 2 MiB). A one-shot process reads a few hundred pages
// once: with the default cache every one of them takes a fresh cache slot,
// and touching fresh memory costs a page fault (about 10 µs in a virtual
// machine, against 2 µs to read the page again from the OS cache). With 32
// pages the cache recycles its slots: the prompt hook at 100k facts took
// 390 fewer page faults and 4-5 ms less (`holomem bench hook`). A
// long-running process wants the default.
func WithPageCache(pages int) Option {
	return func(o *options) { o.cachePages = pages }
}

// DefaultBusyTimeout is how long a write waits for another process's lock.
const DefaultBusyTimeout = 10 * time.Second

// Open opens (creating if needed) the holomem database at path and brings
// its schema up to date. The parent directory is created. A file that is
// not a holomem database, or one written by a newer holomem, gives an error
// wrapping [holomem.ErrSchema].
func Open(ctx context.Context, path string, opts ...Option) (*Store, error) {
	o := options{now: time.Now, busyTimeout: DefaultBusyTimeout, readConns: max(4, runtime.NumCPU())}
	for _, opt := range opts {
		opt(&o)
	}
	if strings.TrimSpace(path) == "" {
		return nil, fmt.Errorf("open store: %w: empty database path", holomem.ErrInvalid)
	}
	if path == ":memory:" || strings.HasPrefix(path, "file:") {
		return nil, fmt.Errorf("open store: %w: %q: give a file path (in-memory and URI databases are not supported)", holomem.ErrInvalid, path)
	}
	registerFunctions()
	// Memory is private: the directory is the user's alone and the file
	// (and the -wal/-shm files SQLite derives from its mode) 0600.
	if err := os.MkdirAll(filepath.Dir(path), 0o700); err != nil {
		return nil, fmt.Errorf("open store: %w", err)
	}
	if err := createPrivate(path); err != nil {
		return nil, fmt.Errorf("open store: %w", err)
	}
	// The checks read the file with their own descriptors, which a file
	// this process already holds must not see (see held). The switch to
	// WAL mode is done under the same lock, so a second Open of the file
	// in this process finds it done and need not look.
	var walNotice string
	release, err := holdFile(path, func() error {
		if err := checkHeader(path); err != nil {
			return err
		}
		var err error
		if walNotice, err = walCut(path); err != nil {
			return err
		}
		convertToWAL(ctx, path, o.busyTimeout)
		return nil
	})
	if err != nil {
		return nil, fmt.Errorf("open store: %w", err)
	}
	s, err := open(ctx, path, o, walNotice)
	if err != nil {
		release()
		return nil, err
	}
	s.release = release
	return s, nil
}

// open is Open after the file checks.
func open(ctx context.Context, path string, o options, walNotice string) (*Store, error) {
	var err error
	s := &Store{path: path, now: o.now}
	s.Base = s.base()
	if s.wdb, err = openDB(path, o.busyTimeout, "immediate", 1, o.cachePages); err != nil {
		return nil, fmt.Errorf("open store: %w", err)
	}
	if o.single {
		// Read transactions begin DEFERRED on it too (see readOnWriter).
		s.rdb = s.wdb
	} else if s.rdb, err = openDB(path, o.busyTimeout, "deferred", o.readConns, o.cachePages); err != nil {
		s.wdb.Close()
		return nil, fmt.Errorf("open store: %w", err)
	}
	if err := s.migrate(ctx); err != nil {
		s.Close()
		if readOnlyDir(path) {
			// A read-only file system (or directory): serve reads.
			return openReadOnly(ctx, path, o)
		}
		return nil, fmt.Errorf("open store: %s: %w", path, err)
	}
	if err := s.syncFTS(ctx); err != nil {
		s.Close()
		return nil, fmt.Errorf("open store: %s: %w", path, err)
	}
	// The connections are open (migrate used them): remember which file
	// they hold.
	if s.abs, err = filepath.Abs(path); err == nil {
		s.ident, err = os.Stat(s.abs)
	}
	if err != nil {
		s.Close()
		return nil, fmt.Errorf("open store: %w", err)
	}
	if walNotice != "" {
		s.recordWALCut(ctx, walNotice)
	}
	return s, nil
}

// CheckFile reports whether the path the store was opened from still
// names the file it holds open. A file deleted or replaced under a running
// process (a restore, a copy over it, rm) would otherwise take its writes
// silently: SQLite keeps writing to the unlinked inode, and every
// acknowledged write after that is lost when the process exits. It returns
// an error wrapping [holomem.ErrStoreMoved] then; writes check it first
// and serve reports it at /healthz. It costs one stat.
func (s *Store) CheckFile() error {
	if s.ident == nil {
		return nil
	}
	fi, err := os.Stat(s.abs)
	switch {
	case errors.Is(err, fs.ErrNotExist):
		return fmt.Errorf("%w (%s no longer exists)", holomem.ErrStoreMoved, s.abs)
	case err != nil:
		return fmt.Errorf("check %s: %w", s.abs, err)
	case !os.SameFile(fi, s.ident):
		return fmt.Errorf("%w (%s is another file now)", holomem.ErrStoreMoved, s.abs)
	}
	return nil
}

// Health implements [holomem.HealthChecker]: the file check of CheckFile.
func (s *Store) Health(context.Context) error { return s.CheckFile() }

// openDB opens a pool of conns connections; cachePages > 0 sets their
// page cache (see WithPageCache).
func openDB(path string, busy time.Duration, txlock string, conns, cachePages int) (*sql.DB, error) {
	q := url.Values{}
	q.Add("_pragma", "busy_timeout("+strconv.FormatInt(busy.Milliseconds(), 10)+")")
	q.Add("_pragma", "journal_mode(WAL)")
	// For historical reasons SQLite does not enforce foreign keys unless asked,
	// and cascading deletes of links and edges depend on them.
	q.Add("_pragma", "foreign_keys(1)")
	// NORMAL is durable across application crashes in WAL mode; only a power
	// loss can drop the last transactions, never corrupt the file.
	q.Add("_pragma", "synchronous(NORMAL)")
	if txlock == "immediate" {
		// The writer's statement journals (an insert into facts fires
		// triggers, so each needs one) stay in memory: spilled to a
		// temporary file they were half of a bulk import's write syscalls.
		// They only undo a failed statement inside its transaction;
		// durability is the WAL's.
		q.Add("_pragma", "temp_store(MEMORY)")
	}
	if cachePages > 0 {
		q.Add("_pragma", "cache_size("+strconv.Itoa(cachePages)+")")
	}
	q.Set("_txlock", txlock)
	db, err := sql.Open("sqlite", "file:"+escapePath(path)+"?"+q.Encode())
	if err != nil {
		return nil, err
	}
	db.SetMaxOpenConns(conns)
	db.SetMaxIdleConns(conns)
	db.SetConnMaxIdleTime(0)
	return db, nil
}

// escapePath makes a file path safe inside a "file:" URI: '?' and '#' would
// otherwise start the query or fragment.
func escapePath(p string) string {
	r := strings.NewReplacer("%", "%25", "?", "%3f", "#", "%23")
	return r.Replace(p)
}

// convertToWAL switches a file not yet in WAL mode (a new one) to it,
// retrying while another process does the same. The connections' own
// journal_mode(WAL) pragma cannot wait: switching starts a read
// transaction and then upgrades it to a write, and SQLite returns
// SQLITE_BUSY at once instead of calling the busy handler there (waiting
// could deadlock), so processes opening a new file together (a hook and
// serve on first use) failed with "database is locked". Once the header
// says WAL, the pragma only reads. Any other error, or a wait past the
// busy timeout, is left to the opening that follows to report.
func convertToWAL(ctx context.Context, path string, busy time.Duration) {
	if inWALMode(path) {
		return
	}
	db, err := sql.Open("sqlite", "file:"+escapePath(path)+"?_pragma=busy_timeout("+strconv.FormatInt(busy.Milliseconds(), 10)+")")
	if err != nil {
		return
	}
	defer db.Close()
	db.SetMaxOpenConns(1)
	deadline := time.Now().Add(busy)
	for {
		_, err := db.ExecContext(ctx, "PRAGMA journal_mode(WAL)")
		if err == nil || !isBusy(err) || time.Now().After(deadline) {
			return
		}
		// Jittered, so two processes retrying do not collide in step.
		select {
		case <-ctx.Done():
			return
		case <-time.After(time.Duration(1+rand.IntN(10)) * time.Millisecond):
		}
	}
}

// inWALMode reports whether the file's header says WAL mode (bytes 18
// and 19, the read and write format versions, are 2).
func inWALMode(path string) bool {
	f, err := os.Open(path)
	if err != nil {
		return false
	}
	defer f.Close()
	hdr := make([]byte, 20)
	if _, err := io.ReadFull(f, hdr); err != nil {
		return false
	}
	return hdr[18] == 2 && hdr[19] == 2
}

func isBusy(err error) bool {
	var se *msqlite.Error
	return errors.As(err, &se) && se.Code()&0xff == 5 // SQLITE_BUSY
}

// readOnlyDir reports whether the directory holding path refuses new
// files (a read-only mount): SQLite in WAL mode then cannot open the file
// the usual way, because it must create the -shm index beside it.
func readOnlyDir(path string) bool {
	f, err := os.CreateTemp(filepath.Dir(path), ".holomem-rw-probe-*")
	if err != nil {
		return true
	}
	f.Close()
	os.Remove(f.Name())
	return false
}

// openReadOnly opens an up-to-date database on a read-only file system as
// immutable: reads work (recall, list, export, verify); every write fails
// with [holomem.ErrStorageFull]. Nothing else can write the file there.
func openReadOnly(ctx context.Context, path string, o options) (*Store, error) {
	dsn := "file:" + escapePath(path) + "?mode=ro&immutable=1&_pragma=foreign_keys(1)&_pragma=busy_timeout(" + strconv.FormatInt(o.busyTimeout.Milliseconds(), 10) + ")"
	s := &Store{path: path, now: o.now}
	s.Base = s.base()
	var err error
	if s.wdb, err = sql.Open("sqlite", dsn); err != nil {
		return nil, fmt.Errorf("open store read-only: %w", err)
	}
	s.wdb.SetMaxOpenConns(1)
	if s.rdb, err = sql.Open("sqlite", dsn); err != nil {
		s.wdb.Close()
		return nil, fmt.Errorf("open store read-only: %w", err)
	}
	s.rdb.SetMaxOpenConns(o.readConns)
	if _, err := s.checkIdentity(ctx); err != nil {
		s.Close()
		return nil, fmt.Errorf("open store read-only: %s: %w", path, err)
	}
	v, err := s.SchemaVersion(ctx)
	if err == nil && v < LatestSchema {
		err = fmt.Errorf("%w: schema %d needs an upgrade to %d, which a read-only file system does not allow", holomem.ErrStorageFull, v, LatestSchema)
	}
	if err != nil {
		s.Close()
		return nil, fmt.Errorf("open store read-only: %s: %w", path, err)
	}
	return s, nil
}

// createPrivate creates path as an empty 0600 file when it does not exist
// (SQLite would create it with the umask's mode, usually 0644).
func createPrivate(path string) error {
	f, err := os.OpenFile(path, os.O_RDONLY|os.O_CREATE|os.O_EXCL, 0o600)
	if errors.Is(err, fs.ErrExist) {
		return nil
	}
	if err != nil {
		return err
	}
	return f.Close()
}

// checkHeader rejects an existing non-empty file that is not SQLite before
// the driver touches it (setting WAL mode would fail with a less helpful
// message).
func checkHeader(path string) error {
	f, err := os.Open(path)
	if errors.Is(err, fs.ErrNotExist) {
		return nil
	}
	if err != nil {
		return err
	}
	defer f.Close()
	st, err := f.Stat()
	if err != nil {
		return err
	}
	if st.IsDir() {
		return fmt.Errorf("%w: %s is a directory, not a holomem database", holomem.ErrSchema, path)
	}
	hdr := make([]byte, 16)
	n, err := io.ReadFull(f, hdr)
	if n == 0 && (err == io.EOF || err == nil) {
		return nil // empty file: SQLite initialises it
	}
	if err != nil && !errors.Is(err, io.ErrUnexpectedEOF) {
		return err
	}
	if !bytes.Equal(hdr[:n], []byte("SQLite format 3\x00")) {
		return fmt.Errorf("%w: %s is not a holomem database (not an SQLite file)", holomem.ErrSchema, path)
	}
	return nil
}

var errClosed = errors.New("store is closed")

// Path returns the database file's path.
func (s *Store) Path() string { return s.path }

// Close releases the connections. It runs PRAGMA optimize first so later
// opens get fresh planner statistics.
func (s *Store) Close() error {
	var errs []error
	s.wmu.Lock()
	if s.closed {
		s.wmu.Unlock()
		return nil
	}
	s.closed = true
	for _, st := range s.stmts {
		st.Close()
	}
	s.wrstmts.Range(func(_, v any) bool {
		v.(*sql.Stmt).Close()
		return true
	})
	if s.wdb != nil {
		_, _ = s.wdb.Exec("PRAGMA optimize")
		errs = append(errs, s.wdb.Close())
	}
	s.wmu.Unlock()
	s.rstmts.Range(func(_, v any) bool {
		v.(*sql.Stmt).Close()
		return true
	})
	if s.rdb != nil {
		errs = append(errs, s.rdb.Close())
	}
	if s.release != nil {
		s.release()
	}
	return errors.Join(errs...)
}

// Backup writes a consistent copy of the database to dst (VACUUM INTO)
// while the store stays open for reads and writes. dst must not exist.
func (s *Store) Backup(ctx context.Context, dst string) error {
	if strings.TrimSpace(dst) == "" {
		return fmt.Errorf("backup: %w: empty destination path", holomem.ErrInvalid)
	}
	if _, err := os.Stat(dst); err == nil {
		return fmt.Errorf("backup: %w: %s already exists", holomem.ErrConflict, dst)
	}
	if err := os.MkdirAll(filepath.Dir(dst), 0o700); err != nil {
		return fmt.Errorf("backup: %w", err)
	}
	// VACUUM INTO creates the file with the process umask; create it
	// private first (it accepts an empty file).
	if err := createPrivate(dst); err != nil {
		return fmt.Errorf("backup: %w", err)
	}
	if _, err := s.rdb.ExecContext(ctx, "VACUUM INTO ?", dst); err != nil {
		// The copy and the journal SQLite wrote beside it (a failed
		// VACUUM INTO leaves it): neither is a backup.
		for _, sfx := range []string{"", "-journal", "-wal", "-shm"} {
			os.Remove(dst + sfx)
		}
		return fmt.Errorf("backup: %w", err)
	}
	return nil
}

// SchemaVersion returns the version of the schema in the file.
func (s *Store) SchemaVersion(ctx context.Context) (int, error) {
	var v int
	if err := s.rdb.QueryRowContext(ctx, "PRAGMA user_version").Scan(&v); err != nil {
		return 0, fmt.Errorf("schema version: %w", err)
	}
	return v, nil
}

// Checkpoint copies the write-ahead log into the database file and
// truncates it (PRAGMA wal_checkpoint(TRUNCATE)), as before measuring size.
func (s *Store) Checkpoint(ctx context.Context) error {
	s.wmu.Lock()
	defer s.wmu.Unlock()
	if _, err := s.wdb.ExecContext(ctx, "PRAGMA wal_checkpoint(TRUNCATE)"); err != nil {
		return fmt.Errorf("checkpoint: %w", err)
	}
	return nil
}

func migrations() ([]sqlstore.Migration, error) { return sqlstore.Migrations(&migrationFS) }

// LatestSchema is the schema version this binary writes.
var LatestSchema = sqlstore.LatestSchema(&migrationFS)

// migrate applies the missing migrations, each in its own IMMEDIATE
// transaction, re-reading the version inside it so two processes opening a
// new file at once apply each migration once.
func (s *Store) migrate(ctx context.Context) error {
	ms, err := migrations()
	if err != nil {
		return fmt.Errorf("migrate: %w", err)
	}
	s.wmu.Lock()
	defer s.wmu.Unlock()

	version, err := s.checkIdentity(ctx)
	if err != nil {
		return err
	}
	if version == len(ms) {
		// Up to date (the usual case): no IMMEDIATE transaction per
		// migration, so a one-shot read (recall, the prompt hook) neither
		// takes the write lock nor waits for another process's writer.
		return nil
	}
	for _, m := range ms {
		if err := s.applyMigration(ctx, m); err != nil {
			return err
		}
	}
	if version == 0 {
		// A new database: its entities will all be derived by this version.
		if _, err := s.wdb.ExecContext(ctx, "INSERT INTO meta (key, value) VALUES (?, ?) ON CONFLICT(key) DO NOTHING",
			holomem.MetaEntityFingerprint, text.EntityFingerprint()); err != nil {
			return fmt.Errorf("migrate: %w", err)
		}
	}
	return nil
}

// checkIdentity rejects databases that belong to another program or to a
// newer holomem.
// It returns the schema version in the file.
func (s *Store) checkIdentity(ctx context.Context) (int, error) {
	// One statement, so one snapshot: another process creating the same
	// new file commits each migration's tables together with the
	// application id, and three separate reads could see the tables
	// without the id and call the file foreign.
	var version, appID, tables int
	err := s.wdb.QueryRowContext(ctx, `SELECT
		(SELECT user_version FROM pragma_user_version),
		(SELECT application_id FROM pragma_application_id),
		(SELECT count(*) FROM sqlite_schema WHERE type = 'table')`).Scan(&version, &appID, &tables)
	if err != nil {
		if isNotADB(err) {
			return 0, fmt.Errorf("%w: not a holomem database (not an SQLite file)", holomem.ErrSchema)
		}
		return 0, fmt.Errorf("read schema version: %w", err)
	}
	switch {
	case appID != 0 && appID != applicationID:
		return 0, fmt.Errorf("%w: not a holomem database (application id %#x)", holomem.ErrSchema, appID)
	case appID == 0 && tables > 0:
		return 0, fmt.Errorf("%w: not a holomem database (an SQLite file with other tables)", holomem.ErrSchema)
	case version > LatestSchema:
		return 0, newerSchemaError(version)
	}
	return version, nil
}

func newerSchemaError(version int) error {
	return fmt.Errorf("%w: written by a newer holomem (schema %d, this binary knows %d): upgrade holomem", holomem.ErrSchema, version, LatestSchema)
}

func (s *Store) applyMigration(ctx context.Context, m sqlstore.Migration) error {
	tx, err := s.wdb.BeginTx(ctx, nil)
	if err != nil {
		return fmt.Errorf("migrate: %s: %w", m.Name, err)
	}
	defer tx.Rollback()
	var version int
	if err := tx.QueryRowContext(ctx, "PRAGMA user_version").Scan(&version); err != nil {
		return fmt.Errorf("migrate: %s: %w", m.Name, err)
	}
	if version > LatestSchema {
		return newerSchemaError(version)
	}
	if version >= m.Version {
		return nil
	}
	q, err := m.Text()
	if err != nil {
		return fmt.Errorf("migrate: %s: %w", m.Name, err)
	}
	if _, err := tx.ExecContext(ctx, q); err != nil {
		return fmt.Errorf("migrate: %s: %w", m.Name, err)
	}
	// PRAGMA takes no bound parameters; both values are integers we control.
	if _, err := tx.ExecContext(ctx, fmt.Sprintf("PRAGMA user_version = %d", m.Version)); err != nil {
		return fmt.Errorf("migrate: %s: %w", m.Name, err)
	}
	if _, err := tx.ExecContext(ctx, fmt.Sprintf("PRAGMA application_id = %d", applicationID)); err != nil {
		return fmt.Errorf("migrate: %s: %w", m.Name, err)
	}
	if err := tx.Commit(); err != nil {
		return fmt.Errorf("migrate: %s: %w", m.Name, err)
	}
	return nil
}

func isNotADB(err error) bool {
	var se *msqlite.Error
	if errors.As(err, &se) {
		return se.Code()&0xff == 26 // SQLITE_NOTADB
	}
	return strings.Contains(err.Error(), "file is not a database")
}
