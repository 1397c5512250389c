package sqlite

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"os"
	"strconv"
	"strings"
	"time"

	"github.com/holomem/holomem"
	"github.com/holomem/holomem/internal/rowcodec"
)

// OpenForCheck opens an existing database file read-only for checking
// (holomem verify): it never creates, migrates, converts to WAL, rolls
// back a journal or records anything. immutable tells SQLite that nothing
// can change the file while it is open, so it ignores any journal or
// write-ahead log beside it and creates no index; the caller passes it
// when no write-ahead log is there to be read (and reports a hot journal
// itself). Without immutable, a write-ahead log beside the file is read
// as a reader would (a live store under serve), and SQLite may create or
// update its shared-memory index, never the file or the log. Writes
// through the returned store fail.
func OpenForCheck(ctx context.Context, path string, immutable bool) (*Store, error) {
	fi, err := os.Stat(path)
	if err != nil {
		return nil, fmt.Errorf("open for check: %w", err)
	}
	if !fi.Mode().IsRegular() {
		return nil, fmt.Errorf("open for check: %w: %s is not a regular file", holomem.ErrInvalid, path)
	}
	if err := checkHeader(path); err != nil {
		return nil, fmt.Errorf("open for check: %w", err)
	}
	registerFunctions()
	q := "mode=ro"
	if immutable {
		q += "&immutable=1"
	}
	dsn := "file:" + escapePath(path) + "?" + q + "&_pragma=foreign_keys(1)&_pragma=busy_timeout(" + strconv.FormatInt(DefaultBusyTimeout.Milliseconds(), 10) + ")"
	s := &Store{path: path, now: time.Now}
	if s.wdb, err = sql.Open("sqlite", dsn); err != nil {
		return nil, fmt.Errorf("open for check: %w", err)
	}
	s.wdb.SetMaxOpenConns(1)
	s.rdb = s.wdb
	if _, err := s.checkIdentity(ctx); err != nil {
		s.Close()
		return nil, fmt.Errorf("open for check: %s: %w", path, err)
	}
	return s, nil
}

// CheckPages runs SQLite's integrity_check (pages, b-trees, every index
// against its table and, since SQLite 3.44, each FTS5 index's own
// structure) and foreign_key_check on a read transaction, so it works on a
// store from [OpenForCheck]. It returns the problems found.
func (s *Store) CheckPages(ctx context.Context) ([]string, error) {
	var problems []string
	err := s.read(ctx, func(tx *sql.Tx) error {
		for _, q := range []string{"PRAGMA integrity_check", "PRAGMA foreign_key_check"} {
			rows, err := tx.QueryContext(ctx, q)
			if err != nil {
				return err
			}
			for rows.Next() {
				if q == "PRAGMA integrity_check" {
					var msg string
					if err := rows.Scan(&msg); err != nil {
						rows.Close()
						return err
					}
					if msg != "ok" {
						problems = append(problems, msg)
					}
					continue
				}
				var table, parent string
				var rowid sql.NullInt64
				var fkid int
				if err := rows.Scan(&table, &rowid, &parent, &fkid); err != nil {
					rows.Close()
					return err
				}
				problems = append(problems, fmt.Sprintf("%s row %d refers to a missing %s row", table, rowid.Int64, parent))
			}
			rows.Close()
			if err := rows.Err(); err != nil {
				return err
			}
		}
		return nil
	})
	if err != nil {
		return problems, fmt.Errorf("check pages: %w", err)
	}
	return problems, nil
}

// ErrHashMismatch is wrapped by the problems [Store.CheckContentHashes]
// reports: a fact's stored content no longer hashes to its content_hash
// (a changed byte on disk, or a write by another tool).
var ErrHashMismatch = errors.New("content does not match its stored hash")

// CheckRow is what [Store.CheckContentHashes] reads of a fact.
type CheckRow struct {
	ID        int64
	Namespace string
	Content   string
	HRR       []byte // nil when none; valid only during the call
}

// CheckContentHashes recomputes every fact's content hash (superseded
// facts too) and calls bad for each fact whose stored content_hash
// differs, or whose content is not stored as text. Each fact read is also
// passed to each, when not nil, for deeper checks (verify --deep). It
// returns the number of facts checked.
func (s *Store) CheckContentHashes(ctx context.Context, bad func(id int64, err error), each func(CheckRow)) (int, error) {
	n := 0
	err := s.read(ctx, func(tx *sql.Tx) error {
		rows, err := tx.QueryContext(ctx, "SELECT id, namespace, CAST(content AS BLOB), content_hash, typeof(content), hrr FROM facts ORDER BY id")
		if err != nil {
			return err
		}
		defer rows.Close()
		for rows.Next() {
			var r CheckRow
			var hash int64
			var content []byte
			var typ string
			var hv sql.RawBytes
			if err := rows.Scan(&r.ID, &r.Namespace, &content, &hash, &typ, &hv); err != nil {
				return err
			}
			n++
			r.Content = string(content)
			switch {
			case typ != "text":
				bad(r.ID, fmt.Errorf("%w: the content is stored as %s, not text", ErrHashMismatch, typ))
			case rowcodec.ContentHash(r.Content) != hash:
				bad(r.ID, fmt.Errorf("%w (%q)", ErrHashMismatch, clip(r.Content, 60)))
			}
			if each != nil {
				if hv != nil {
					r.HRR = hv
				}
				each(r)
			}
		}
		return rows.Err()
	})
	if err != nil {
		return n, fmt.Errorf("check content hashes: %w", err)
	}
	return n, nil
}

// clip shortens s to at most n runes for a message.
func clip(s string, n int) string {
	s = strings.ToValidUTF8(s, "\uFFFD")
	r := []rune(s)
	if len(r) <= n {
		return s
	}
	return string(r[:n]) + "…"
}
