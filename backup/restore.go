package backup

import (
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/holomem/holomem"
	"github.com/holomem/holomem/sqlite"
)

// Restored says what [Restore] did.
type Restored struct {
	From     string        `json:"from"`
	To       string        `json:"to"`
	OldKept  string        `json:"old_kept_at,omitempty"`
	Verified *Verification `json:"verified"`
}

// Restore replaces the database file db with the backup src: src is
// copied beside db and the copy verified (a damaged backup is refused
// with holomem.ErrInvalid); a database with changes newer than the backup
// is refused with holomem.ErrConflict unless force; the old file (and its
// write-ahead log) is moved aside as db.before-restore-TIME, never
// deleted. No process may have db open meanwhile.
func Restore(ctx context.Context, db, src string, force bool) (*Restored, error) {
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
		return nil, DiskFullHint(fmt.Errorf("restore: copy %s: %w", src, err))
	}
	cleanup := func() {
		for _, sfx := range []string{"", "-wal", "-shm"} {
			os.Remove(tmp + sfx)
		}
	}
	rep := &Restored{From: src, To: db, Verified: Verify(ctx, tmp, false)}
	rep.Verified.File = src
	if !rep.Verified.OK {
		cleanup()
		return rep, fmt.Errorf("%w: backup %s does not verify: %s", holomem.ErrInvalid, src, strings.Join(rep.Verified.Problems, "; "))
	}
	if _, err := os.Stat(db); err == nil {
		if err := checkNotNewer(ctx, db, tmp, force); err != nil {
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
// live file so its write-ahead log is empty when it is moved aside. A
// live file that does not open or read is what restore is for: force
// replaces it.
func checkNotNewer(ctx context.Context, db, backup string, force bool) error {
	live, err := sqlite.Open(ctx, db)
	if err != nil {
		if force {
			return nil
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
			return nil
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
