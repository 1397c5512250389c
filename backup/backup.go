package backup

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/holomem/holomem"
	"github.com/holomem/holomem/sqlite"
)

// lastKey is the meta key where a backup records when and where the last
// backup of a database was written (doctor shows its age).
const lastKey = "cmd.last_backup"

// Record is what a backup leaves in the database it copied.
type Record struct {
	At   time.Time `json:"at"`
	Path string    `json:"path"`
}

// Report says what [Write] wrote.
type Report struct {
	Path     string        `json:"path"`
	Bytes    int64         `json:"bytes"`
	Took     time.Duration `json:"took_ns"`
	Verified *Verification `json:"verified"`
}

// Write writes a consistent snapshot of s to dest (a new file, or an
// existing directory where the file is named by [Name]) while other
// processes keep reading and writing, verifies the copy and records its
// time in s. A copy that does not verify is reported with an error.
func Write(ctx context.Context, s *sqlite.Store, dest string) (*Report, error) {
	if fi, err := os.Stat(dest); err == nil && fi.IsDir() {
		dest = filepath.Join(dest, Name(time.Now()))
	}
	t0 := time.Now()
	if err := s.Backup(ctx, dest); err != nil {
		if IsDiskFull(err) {
			// The copy's file system is full, not the database's.
			return nil, fmt.Errorf("%w: the disk holding %s is full: free space there or give another DEST; the database is unchanged and the partial copy was removed", err, filepath.Dir(dest))
		}
		return nil, err
	}
	rep := &Report{Path: dest, Took: time.Since(t0)}
	if fi, err := os.Stat(dest); err == nil {
		rep.Bytes = fi.Size()
	}
	rep.Verified = Verify(ctx, dest, false)
	if !rep.Verified.OK {
		return rep, fmt.Errorf("backup %s does not verify: %s", dest, strings.Join(rep.Verified.Problems, "; "))
	}
	abs, _ := filepath.Abs(dest)
	rec, _ := json.Marshal(Record{At: time.Now().UTC(), Path: abs})
	if err := s.SetMeta(ctx, lastKey, string(rec)); err != nil {
		return rep, fmt.Errorf("%w: backup written but its time not recorded: %w", ErrNotRecorded, err)
	}
	return rep, nil
}

// ErrNotRecorded is returned by [Write] with its report when the copy was
// written and verified but its time could not be stored in the database:
// the backup is good, doctor will not know of it.
var ErrNotRecorded = errors.New("backup not recorded")

// Name is the file name of a backup written into a directory; names sort
// by time.
func Name(t time.Time) string {
	return "holomem-" + t.UTC().Format("20060102T150405Z") + ".db"
}

// Prune removes the oldest backups ([Name]) of dir beyond keep and returns
// what it removed; keep <= 0 keeps all.
func Prune(dir string, keep int) ([]string, error) {
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

// Last reads the record the last backup left in the database;
// holomem.ErrNotFound when there was none.
func Last(ctx context.Context, s holomem.MetaStore) (*Record, error) {
	v, err := s.Meta(ctx, lastKey)
	if err != nil {
		return nil, err
	}
	var r Record
	if err := json.Unmarshal([]byte(v), &r); err != nil {
		return nil, fmt.Errorf("last backup record: %w", err)
	}
	return &r, nil
}

// Age is doctor's line about the last backup of the database.
func Age(ctx context.Context, s holomem.MetaStore) string {
	b, err := Last(ctx, s)
	switch {
	case errors.Is(err, holomem.ErrNotFound):
		return "never (run `holomem backup DIR`, or serve --backup-every 6h)"
	case err != nil:
		return "unknown: " + err.Error()
	}
	return fmt.Sprintf("%s ago, %s", time.Since(b.At).Round(time.Minute), b.Path)
}

// DiskFullHint turns SQLite's "database or disk is full" (and ENOSPC) into
// an error that names the fix; other errors pass unchanged.
func DiskFullHint(err error) error {
	if IsDiskFull(err) {
		return fmt.Errorf("%w: the disk is full: free space on the file system holding the database (or move it with --db), then retry; nothing acknowledged was lost", err)
	}
	return err
}

// IsDiskFull reports a full file system in SQLite's or the OS's words.
func IsDiskFull(err error) bool {
	if err == nil {
		return false
	}
	s := err.Error()
	return strings.Contains(s, "database or disk is full") || strings.Contains(s, "no space left on device") || strings.Contains(s, "SQLITE_FULL")
}
