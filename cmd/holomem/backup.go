package main

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"math"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/spf13/cobra"

	"github.com/holomem/holomem"
	"github.com/holomem/holomem/hrr"
	"github.com/holomem/holomem/index"
	"github.com/holomem/holomem/postgres"
	"github.com/holomem/holomem/retrieve"
	"github.com/holomem/holomem/sqlite"
)

// lastBackupKey is the meta key where backup records when and where the
// last backup of a database was written (doctor shows its age).
const lastBackupKey = "cmd.last_backup"

// backupRecord is the value stored under lastBackupKey.
type backupRecord struct {
	At   time.Time `json:"at"`
	Path string    `json:"path"`
}

// backupReport is what `holomem backup` prints.
type backupReport struct {
	Path     string        `json:"path"`
	Bytes    int64         `json:"bytes"`
	Took     time.Duration `json:"took_ns"`
	Verified *verifyReport `json:"verified"`
}

func (a *app) backupCmd() *cobra.Command {
	return &cobra.Command{
		Use:   "backup DEST",
		Short: "Write a consistent copy of the database (online, while serve writes) and verify it",
		Long: `Writes a consistent snapshot of the database to DEST with SQLite's VACUUM INTO:
other processes keep reading and writing meanwhile. DEST is a new file, or an
existing directory (the file is then named holomem-YYYYMMDDTHHMMSSZ.db). The
copy is verified (see ` + "`holomem verify`" + `) and its time recorded for doctor.
For PostgreSQL use pg_dump, or ` + "`holomem copy --to FILE`" + `.`,
		GroupID: "admin", Args: cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			rep, err := a.backup(cmd.Context(), args[0])
			if err != nil {
				return err
			}
			return a.out(rep, func(w io.Writer) {
				fmt.Fprintf(w, "backup written: %s (%d bytes, %s)\n", rep.Path, rep.Bytes, rep.Took.Round(time.Millisecond))
				printVerify(w, rep.Verified)
			})
		},
	}
}

// backup writes and verifies one backup of the open database.
func (a *app) backup(ctx context.Context, dest string) (*backupReport, error) {
	s, err := a.sqliteStore(ctx, "backup")
	if err != nil {
		return nil, err
	}
	if fi, err := os.Stat(dest); err == nil && fi.IsDir() {
		dest = filepath.Join(dest, backupName(time.Now()))
	}
	t0 := time.Now()
	if err := s.Backup(ctx, dest); err != nil {
		if isDiskFull(err) {
			// The copy's file system is full, not the database's.
			return nil, fmt.Errorf("%w: the disk holding %s is full: free space there or give another DEST; the database is unchanged and the partial copy was removed", err, filepath.Dir(dest))
		}
		return nil, err
	}
	rep := &backupReport{Path: dest, Took: time.Since(t0)}
	if fi, err := os.Stat(dest); err == nil {
		rep.Bytes = fi.Size()
	}
	rep.Verified = verifyFile(ctx, dest)
	if !rep.Verified.OK {
		return rep, fmt.Errorf("backup %s does not verify: %s", dest, strings.Join(rep.Verified.Problems, "; "))
	}
	abs, _ := filepath.Abs(dest)
	rec, _ := json.Marshal(backupRecord{At: time.Now().UTC(), Path: abs})
	if err := s.SetMeta(ctx, lastBackupKey, string(rec)); err != nil {
		fmt.Fprintf(a.stderr, "holomem: backup written but its time not recorded: %v\n", err)
	}
	return rep, nil
}

// backupName is the file name of a backup written into a directory; names
// sort by time.
func backupName(t time.Time) string {
	return "holomem-" + t.UTC().Format("20060102T150405Z") + ".db"
}

// pruneBackups removes the oldest holomem-*.db files of dir beyond keep.
func pruneBackups(dir string, keep int) ([]string, error) {
	if keep <= 0 {
		return nil, nil
	}
	names, err := filepath.Glob(filepath.Join(dir, "holomem-*Z.db"))
	if err != nil {
		return nil, err
	}
	slices.Sort(names)
	var removed []string
	for len(names) > keep {
		if err := os.Remove(names[0]); err != nil {
			return removed, err
		}
		removed = append(removed, names[0])
		names = names[1:]
	}
	return removed, nil
}

// sqliteStore opens the database and insists on SQLite (backup, restore
// and verify work on the file).
func (a *app) sqliteStore(ctx context.Context, what string) (*sqlite.Store, error) {
	if postgres.IsAddress(a.dbPath) {
		return nil, fmt.Errorf("%w: %s works on SQLite files; for PostgreSQL use pg_dump or `holomem copy`", holomem.ErrInvalid, what)
	}
	st, err := a.open(ctx)
	if err != nil {
		return nil, err
	}
	s, ok := st.(*sqlite.Store)
	if !ok {
		return nil, fmt.Errorf("%w: %s works on SQLite files", holomem.ErrInvalid, what)
	}
	return s, nil
}

// verifyReport is what `holomem verify` prints.
type verifyReport struct {
	File     string   `json:"file"`
	OK       bool     `json:"ok"`
	Schema   int      `json:"schema_version"`
	Facts    int      `json:"facts"`
	Edges    int      `json:"edges"`
	Hashes   int      `json:"hashes_checked"`
	HRR      int      `json:"hrr_checked"`
	Derived  int      `json:"hrr_rederived,omitempty"`
	Vectors  int      `json:"vectors_checked"`
	Graphs   int      `json:"graphs_checked"`
	Problems []string `json:"problems,omitempty"`
	Notes    []string `json:"notes,omitempty"`
}

func (a *app) verifyCmd() *cobra.Command {
	var clearWAL, deep bool
	cmd := &cobra.Command{
		Use:   "verify [FILE]",
		Short: "Check a database or backup file, read-only: pages, indexes, full-text index, content hashes, vectors, edges",
		Long: `Checks FILE (default: --db) without writing to it: the file is opened
read-only, never upgraded, converted or rolled back. Reports:

  - a hot journal beside FILE (FILE-journal): a copy or backup killed while
    writing; verify leaves it alone (opening the file with holomem would
    roll it back and lose what the copy held);
  - an empty file, or one that is not a holomem database;
  - an older schema (restore, or opening it with holomem, upgrades it);
  - a write-ahead log cut inside a frame, shorter than its index records
    as committed, or deleted while its index still counted commits, and a
    cut the store recorded when it was last opened (until
    --clear-wal-notice);
  - SQLite's integrity_check (pages, every index against its table, the
    full-text index's structure) and foreign keys (every edge's endpoints
    exist);
  - every fact's content against its stored content hash, and every
    fact's and edge's fields against what the store writes (types, valid
    text, trust in 0..1, plausible counters, times and weights);
  - every HRR vector and embedding decodes (right size, finite numbers),
    and each stored HNSW graph decodes as a load would read it (a damaged
    one is rebuilt by "holomem graph build").

--deep also re-derives each fact's HRR vector from its content and
every full-text index entry from the facts' text, and compares them with
the stored ones (a few seconds per 10,000 facts).
Exit 0 when all hold, 1 with the list of problems otherwise.`,
		GroupID: "admin", Args: cobra.MaximumNArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			file := sqlitePath(a.dbPath)
			if len(args) == 1 {
				file = args[0]
			}
			if postgres.IsAddress(file) {
				return fmt.Errorf("%w: verify works on SQLite files", holomem.ErrInvalid)
			}
			if _, err := os.Stat(file); err != nil {
				return fmt.Errorf("verify: %w", err)
			}
			if clearWAL {
				if err := clearWALNotice(cmd.Context(), file); err != nil {
					return err
				}
			}
			rep := verifyFileOpts(cmd.Context(), file, deep)
			if err := a.out(rep, func(w io.Writer) { printVerify(w, rep) }); err != nil {
				return err
			}
			if !rep.OK {
				return fmt.Errorf("%s: %d problems found; restore the last good backup (holomem restore FILE)", file, len(rep.Problems))
			}
			return nil
		},
	}
	cmd.Flags().BoolVar(&clearWAL, "clear-wal-notice", false, "forget a recorded cut write-ahead log (after comparing with the last backup), then verify (this writes to FILE)")
	cmd.Flags().BoolVar(&deep, "deep", false, "also re-derive every fact's HRR vector and the full-text index from the facts and compare")
	return cmd
}

func clearWALNotice(ctx context.Context, file string) error {
	s, err := sqlite.Open(ctx, file)
	if err != nil {
		return fmt.Errorf("verify: %w", err)
	}
	defer s.Close()
	return s.ClearWALNotice(ctx)
}

// verifyFile checks file read-only (see verifyFileOpts) without the deep
// checks.
func verifyFile(ctx context.Context, file string) *verifyReport {
	return verifyFileOpts(ctx, file, false)
}

// hotJournal reports whether a rollback journal beside file would be
// rolled back by the next opening: it exists, is not empty and its header
// is not zeroed (a committed journal in PERSIST mode is zeroed).
func hotJournal(file string) (bool, int64) {
	f, err := os.Open(file + "-journal")
	if err != nil {
		return false, 0
	}
	defer f.Close()
	fi, err := f.Stat()
	if err != nil || !fi.Mode().IsRegular() || fi.Size() == 0 {
		return false, 0
	}
	hdr := make([]byte, 8)
	n, _ := io.ReadFull(f, hdr)
	for _, b := range hdr[:n] {
		if b != 0 {
			return true, fi.Size()
		}
	}
	return false, 0
}

// verifyFileOpts opens file read-only and checks everything it holds; it
// never fails, it reports. It never writes to the file: with no
// write-ahead log beside it the file is opened immutable (SQLite then
// ignores a journal, which is reported instead of rolled back).
func verifyFileOpts(ctx context.Context, file string, deep bool) *verifyReport {
	rep := &verifyReport{File: file}
	bad := func(format string, args ...any) { rep.Problems = append(rep.Problems, fmt.Sprintf(format, args...)) }
	note := func(format string, args ...any) { rep.Notes = append(rep.Notes, fmt.Sprintf(format, args...)) }
	defer func() { rep.OK = len(rep.Problems) == 0 }()
	fi, err := os.Stat(file)
	switch {
	case err != nil:
		bad("cannot open: %v", err)
		return rep
	case !fi.Mode().IsRegular():
		bad("%s is not a regular file", file)
		return rep
	case fi.Size() == 0:
		bad("the file is empty (0 bytes): not a database (a copy that never started writing?)")
		return rep
	}
	immutable := true
	if hot, size := hotJournal(file); hot {
		bad("a hot journal %s-journal (%d bytes) is beside the file: whatever wrote it (a backup or copy) was stopped mid-write, so the file may be incomplete; verify left it alone (opening the file with holomem would roll the journal back); use another backup, or run the backup again",
			file, size)
	} else if _, err := os.Stat(file + "-wal"); err == nil {
		// Read the log as a reader would: a live store (serve) keeps one,
		// empty right after a checkpoint, and writes on meanwhile.
		immutable = false
	}
	if n, err := sqlite.WALCheck(file); err != nil || n != "" {
		bad("%s%v; compare the facts with the last backup (holomem restore brings it back)", n, errOrEmpty(err))
		if !immutable {
			// Reading the log would rebuild its index (-shm), the
			// evidence of what was committed, which the next open
			// records for doctor: check the file without the log.
			immutable = true
			note("the checks below read the database file without its damaged write-ahead log")
		}
	}
	s, err := sqlite.OpenForCheck(ctx, file, immutable)
	if err != nil {
		bad("cannot open: %v", err)
		return rep
	}
	defer s.Close()
	if rep.Schema, err = s.SchemaVersion(ctx); err != nil {
		bad("read schema version: %v", err)
		return rep
	}
	if pp, err := s.CheckPages(ctx); err != nil || len(pp) > 0 {
		for _, p := range pp {
			bad("%s", p)
		}
		if err != nil {
			bad("%v", err)
		}
	}
	switch {
	case rep.Schema == 0:
		bad("no holomem schema: an empty SQLite database")
		return rep
	case rep.Schema < sqlite.LatestSchema:
		note("schema %d is older than this holomem's %d: `holomem restore` (or opening the file with holomem) upgrades it; verify leaves it as it is and checks what it can",
			rep.Schema, sqlite.LatestSchema)
	}
	if n, err := s.WALNotice(ctx); err != nil || n != "" {
		bad("%s%v; compare the facts with the last backup (holomem restore brings it back), then run `holomem verify --clear-wal-notice`", n, errOrEmpty(err))
	}
	aliases := map[string]map[string]string{}
	var each func(sqlite.CheckRow)
	if deep {
		each = func(r sqlite.CheckRow) {
			if r.HRR == nil {
				return
			}
			am, ok := aliases[r.Namespace]
			if !ok {
				am, _ = s.EntityAliases(ctx, r.Namespace)
				aliases[r.Namespace] = am
			}
			rep.Derived++
			if want := retrieve.DeriveHRR(r.Content, am); !bytes.Equal(want, r.HRR) && !bytes.Equal(retrieve.DeriveHRR(r.Content, nil), r.HRR) {
				bad("fact %d: its HRR vector is not the one its content encodes to (a changed byte on disk)", r.ID)
			}
		}
	}
	factBad, edgeBad := 0, 0
	rep.Hashes, err = s.CheckContentHashes(ctx, func(id int64, err error) {
		if factBad++; factBad <= 20 {
			bad("fact %d: %v", id, err)
		}
	}, each)
	if err != nil {
		bad("%v", err)
	}
	if factBad > 20 {
		bad("%d more damaged facts", factBad-20)
	}
	if deep {
		switch p, ok, err := s.CheckFTSDeep(ctx); {
		case err != nil:
			bad("%v", err)
		case !ok:
			note("the full-text index was built by another version of holomem (the next open rebuilds it): not compared")
		case p != "":
			bad("%s", p)
		}
	}
	if _, err := s.CheckEdges(ctx, func(src, dst int64, err error) {
		if edgeBad++; edgeBad <= 20 {
			bad("edge %d -> %d: %v", src, dst, err)
		}
	}); err != nil {
		bad("%v", err)
	}
	if edgeBad > 20 {
		bad("%d more damaged edges", edgeBad-20)
	}
	st, err := s.Stats(ctx, "")
	if err != nil {
		if rep.Schema < sqlite.LatestSchema {
			note("statistics, vector and graph checks skipped on schema %d: %v", rep.Schema, err)
			return rep
		}
		bad("stats: %v", err)
		return rep
	}
	rep.Facts = st.Facts
	for _, n := range st.Edges {
		rep.Edges += n
	}
	nss := make([]string, 0, len(st.Namespaces))
	for ns := range st.Namespaces {
		nss = append(nss, ns)
	}
	slices.Sort(nss)
	for _, ns := range nss {
		err := s.ScanHRR(ctx, ns, true, func(id int64, v []byte) error {
			rep.HRR++
			if err := hrr.Check(v); err != nil {
				bad("fact %d: HRR vector: %v", id, err)
			}
			return nil
		})
		if err != nil {
			bad("scan HRR vectors of %s: %v", ns, err)
		}
	}
	if want := st.Facts - st.WithoutHRR; rep.HRR != want {
		bad("%d HRR vectors read, the counts say %d", rep.HRR, want)
	}
	for model, n := range st.Models {
		seen, dim := 0, -1
		for _, ns := range nss {
			err := s.ScanEmbeddings(ctx, ns, model, func(id int64, v []float32) error {
				seen++
				if dim < 0 {
					dim = len(v)
				}
				if len(v) == 0 || len(v) != dim {
					bad("fact %d: %s vector has %d dimensions (others %d)", id, model, len(v), dim)
				}
				for _, x := range v {
					if math.IsNaN(float64(x)) || math.IsInf(float64(x), 0) {
						bad("fact %d: %s vector holds %v", id, model, x)
						break
					}
				}
				return nil
			})
			if err != nil {
				bad("scan %s vectors of %s: %v", model, ns, err)
			}
		}
		rep.Vectors += seen
		if seen < n {
			bad("%d %s vectors read, the counts say %d", seen, model, n)
		}
	}
	graphs, err := index.VerifyGraphs(ctx, s)
	if err != nil {
		bad("%v", err)
	}
	for _, g := range graphs {
		rep.Graphs++
		if g.Problem != "" {
			bad("HNSW graph of namespace %s: %s; run `holomem graph build`", g.Namespace, g.Problem)
		}
	}
	return rep
}

// errOrEmpty is err's text, or nothing for nil.
func errOrEmpty(err error) string {
	if err == nil {
		return ""
	}
	return err.Error()
}

func printVerify(w io.Writer, r *verifyReport) {
	if r == nil {
		return
	}
	state := "ok"
	if !r.OK {
		state = "PROBLEMS"
	}
	deep := ""
	if r.Derived > 0 {
		deep = fmt.Sprintf(", %d HRR vectors re-derived", r.Derived)
	}
	fmt.Fprintf(w, "verify %s: %s (schema %d, %d facts, %d edges, %d content hashes, %d HRR and %d embedding vectors, %d HNSW graphs checked%s)\n",
		r.File, state, r.Schema, r.Facts, r.Edges, r.Hashes, r.HRR, r.Vectors, r.Graphs, deep)
	for _, p := range r.Problems {
		fmt.Fprintf(w, "  problem: %s\n", p)
	}
	for _, n := range r.Notes {
		fmt.Fprintf(w, "  note: %s\n", n)
	}
}

// restoreReport is what `holomem restore` prints.
type restoreReport struct {
	From     string        `json:"from"`
	To       string        `json:"to"`
	OldKept  string        `json:"old_kept_at,omitempty"`
	Verified *verifyReport `json:"verified"`
}

func (a *app) restoreCmd() *cobra.Command {
	var force bool
	cmd := &cobra.Command{
		Use:   "restore SRC",
		Short: "Replace the database with a backup: verified first, the old file kept aside",
		Long: `Copies SRC to a temporary file next to --db, verifies the copy (refusing a
damaged backup), refuses to replace a database with changes newer than the
backup unless --force, then moves the current file aside as
DB.before-restore-TIME and puts the copy in its place. Stop serve and mcp
first: a running process would keep writing to the old file.`,
		GroupID: "admin", Args: cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			rep, err := a.restore(cmd.Context(), args[0], force)
			if err != nil {
				return err
			}
			return a.out(rep, func(w io.Writer) {
				fmt.Fprintf(w, "restored %s from %s\n", rep.To, rep.From)
				if rep.OldKept != "" {
					fmt.Fprintf(w, "the previous database is kept at %s\n", rep.OldKept)
				}
				printVerify(w, rep.Verified)
			})
		},
	}
	cmd.Flags().BoolVar(&force, "force", false, "replace a database that has changes newer than the backup")
	return cmd
}

func (a *app) restore(ctx context.Context, src string, force bool) (*restoreReport, error) {
	if postgres.IsAddress(a.dbPath) {
		return nil, fmt.Errorf("%w: restore works on SQLite files; for PostgreSQL use `holomem copy`", holomem.ErrInvalid)
	}
	db := sqlitePath(a.dbPath)
	if _, err := os.Stat(src); err != nil {
		return nil, fmt.Errorf("restore: %w", err)
	}
	if err := os.MkdirAll(filepath.Dir(db), 0o700); err != nil {
		return nil, fmt.Errorf("restore: %w", err)
	}
	tmp := db + ".restore-tmp"
	os.Remove(tmp)
	if err := copyFile(src, tmp); err != nil {
		os.Remove(tmp)
		return nil, diskFullHint(fmt.Errorf("restore: copy %s: %w", src, err))
	}
	cleanup := func() {
		for _, sfx := range []string{"", "-wal", "-shm"} {
			os.Remove(tmp + sfx)
		}
	}
	rep := &restoreReport{From: src, To: db, Verified: verifyFile(ctx, tmp)}
	rep.Verified.File = src
	if !rep.Verified.OK {
		cleanup()
		return rep, fmt.Errorf("%w: backup %s does not verify: %s", holomem.ErrInvalid, src, strings.Join(rep.Verified.Problems, "; "))
	}
	if _, err := os.Stat(db); err == nil {
		if err := a.checkNotNewer(ctx, db, tmp, force); err != nil {
			cleanup()
			return rep, err
		}
		rep.OldKept = db + ".before-restore-" + time.Now().UTC().Format("20060102T150405Z")
		if err := os.Rename(db, rep.OldKept); err != nil {
			cleanup()
			return rep, fmt.Errorf("restore: keep the old database aside: %w", err)
		}
		for _, sfx := range []string{"-wal", "-shm"} {
			if err := os.Rename(db+sfx, rep.OldKept+sfx); err != nil && !errors.Is(err, fs.ErrNotExist) {
				return rep, fmt.Errorf("restore: keep the old %s aside: %w", sfx, err)
			}
		}
	}
	if err := os.Rename(tmp, db); err != nil {
		return rep, fmt.Errorf("restore: %w", err)
	}
	cleanup()
	return rep, nil
}

// checkNotNewer refuses (unless force) when the live database holds a
// change newer than the newest in the backup copy, then checkpoints the
// live file so its write-ahead log is empty when it is moved aside.
func (a *app) checkNotNewer(ctx context.Context, db, backup string, force bool) error {
	live, err := sqlite.Open(ctx, db)
	if err != nil {
		if force {
			return nil // a damaged live file is what restore is for
		}
		return fmt.Errorf("restore: the current database does not open (%v): run with --force to replace it", err)
	}
	defer live.Close()
	b, err := sqlite.Open(ctx, backup)
	if err != nil {
		return fmt.Errorf("restore: %w", err)
	}
	bt, err := b.LastChange(ctx)
	b.Close()
	if err != nil {
		return fmt.Errorf("restore: %w", err)
	}
	lt, err := live.LastChange(ctx)
	if err != nil {
		if force {
			return nil // a damaged live file is what restore is for
		}
		return fmt.Errorf("restore: the current database cannot be read (%v): it looks damaged; run with --force to replace it (it is kept aside)", err)
	}
	if lt.After(bt) && !force {
		return fmt.Errorf("%w: the current database has changes newer than the backup (%s vs %s); run with --force to replace it anyway (it is kept aside)",
			holomem.ErrConflict, lt.Format(time.RFC3339), bt.Format(time.RFC3339))
	}
	if err := live.Checkpoint(ctx); err != nil {
		if force {
			return nil
		}
		return fmt.Errorf("restore: the current database cannot be checkpointed (%v): it looks damaged; run with --force to replace it (it is kept aside)", err)
	}
	return nil
}

// copyFile copies src to a new 0600 file dst and syncs it.
func copyFile(src, dst string) error {
	in, err := os.Open(src)
	if err != nil {
		return err
	}
	defer in.Close()
	out, err := os.OpenFile(dst, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o600)
	if err != nil {
		return err
	}
	if _, err := io.Copy(out, in); err != nil {
		out.Close()
		return err
	}
	if err := out.Sync(); err != nil {
		out.Close()
		return err
	}
	return out.Close()
}

// lastBackup reads the record backup leaves in the database.
func lastBackup(ctx context.Context, s holomem.Store) (*backupRecord, error) {
	v, err := s.Meta(ctx, lastBackupKey)
	if err != nil {
		return nil, err
	}
	var r backupRecord
	if err := json.Unmarshal([]byte(v), &r); err != nil {
		return nil, fmt.Errorf("last backup record: %w", err)
	}
	return &r, nil
}

// diskFullHint turns SQLite's "database or disk is full" (and ENOSPC) into
// an error that names the fix.
func diskFullHint(err error) error {
	if err == nil {
		return nil
	}
	if isDiskFull(err) {
		return fmt.Errorf("%w: the disk is full: free space on the file system holding the database (or move it with --db), then retry; nothing acknowledged was lost", err)
	}
	return err
}

// isDiskFull reports a full file system in SQLite's or the OS's words.
func isDiskFull(err error) bool {
	if err == nil {
		return false
	}
	s := err.Error()
	return strings.Contains(s, "database or disk is full") || strings.Contains(s, "no space left on device") || strings.Contains(s, "SQLITE_FULL")
}

// backupAge is doctor's line about the last backup.
func backupAge(ctx context.Context, s holomem.Store) string {
	b, err := lastBackup(ctx, s)
	switch {
	case errors.Is(err, holomem.ErrNotFound):
		return "never (run `holomem backup DIR`, or serve --backup-every 6h)"
	case err != nil:
		return "unknown: " + err.Error()
	}
	return fmt.Sprintf("%s ago, %s", time.Since(b.At).Round(time.Minute), b.Path)
}

// backupLoop writes a backup into dir every interval and keeps the newest
// keep of them, until ctx ends. Failures are logged; serving goes on.
func (a *app) backupLoop(ctx context.Context, dir string, every time.Duration, keep int, log interface {
	Info(string, ...any)
	Warn(string, ...any)
}) {
	if dir == "" {
		dir = filepath.Join(filepath.Dir(sqlitePath(a.dbPath)), "backups")
	}
	t := time.NewTicker(every)
	defer t.Stop()
	for {
		select {
		case <-ctx.Done():
			return
		case <-t.C:
		}
		if err := os.MkdirAll(dir, 0o700); err != nil {
			log.Warn("backup", "err", err)
			continue
		}
		rep, err := a.backup(ctx, dir)
		if err != nil {
			log.Warn("backup failed", "err", err)
			continue
		}
		removed, err := pruneBackups(dir, keep)
		if err != nil {
			log.Warn("prune backups", "err", err)
		}
		log.Info("backup written", "path", rep.Path, "bytes", rep.Bytes, "removed", len(removed))
	}
}
