package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"time"

	"github.com/spf13/cobra"

	"github.com/holomem/holomem"
	"github.com/holomem/holomem/backend"
	"github.com/holomem/holomem/backup"
	"github.com/holomem/holomem/sqlite"
)

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
func (a *app) backup(ctx context.Context, dest string) (*backup.Report, error) {
	s, err := a.sqliteStore(ctx, "backup")
	if err != nil {
		return nil, err
	}
	rep, err := backup.Write(ctx, s, dest)
	if errors.Is(err, backup.ErrNotRecorded) {
		fmt.Fprintf(a.stderr, "holomem: %v\n", err)
		return rep, nil
	}
	return rep, err
}

// sqliteStore opens the database and insists on SQLite (backup, restore
// and verify work on the file).
func (a *app) sqliteStore(ctx context.Context, what string) (*sqlite.Store, error) {
	if !backend.IsFile(a.dbPath) {
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
			if !backend.IsFile(file) {
				return fmt.Errorf("%w: verify works on SQLite files", holomem.ErrInvalid)
			}
			if _, err := os.Stat(file); err != nil {
				return fmt.Errorf("verify: %w", err)
			}
			if clearWAL {
				if err := backup.ClearWALNotice(cmd.Context(), file); err != nil {
					return err
				}
			}
			rep := backup.Verify(cmd.Context(), file, deep)
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

// printVerify prints a verification for people.
func printVerify(w io.Writer, r *backup.Verification) {
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

// restore replaces the --db file with the backup src.
func (a *app) restore(ctx context.Context, src string, force bool) (*backup.Restored, error) {
	if !backend.IsFile(a.dbPath) {
		return nil, fmt.Errorf("%w: restore works on SQLite files; for PostgreSQL use `holomem copy`", holomem.ErrInvalid)
	}
	return backup.Restore(ctx, sqlitePath(a.dbPath), src, force)
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
		removed, err := backup.Prune(dir, keep)
		if err != nil {
			log.Warn("prune backups", "err", err)
		}
		log.Info("backup written", "path", rep.Path, "bytes", rep.Bytes, "removed", len(removed))
	}
}
