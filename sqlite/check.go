package sqlite

import (
	"bytes"
	"context"
	"database/sql"
	"errors"
	"fmt"
	"math"
	"os"
	"strconv"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/holomem/holomem"
	"github.com/holomem/holomem/internal/leaf/rowcodec"
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
	s.Base = s.base()
	if s.wdb, err = sql.Open("sqlite", dsn); err != nil {
		return nil, fmt.Errorf("open for check: %w", err)
	}
	// Reads only, so a few connections: a check may read (aliases)
	// while it scans the facts.
	s.wdb.SetMaxOpenConns(4)
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
		var err error
		problems, err = pageProblems(ctx, tx)
		return err
	})
	if err != nil {
		return problems, fmt.Errorf("check pages: %w", err)
	}
	return problems, nil
}

// pageProblems runs PRAGMA integrity_check and foreign_key_check in tx and
// returns what they report, one line a problem.
func pageProblems(ctx context.Context, tx *sql.Tx) ([]string, error) {
	var problems []string
	for _, q := range []string{"PRAGMA integrity_check", "PRAGMA foreign_key_check"} {
		rows, err := tx.QueryContext(ctx, q)
		if err != nil {
			return problems, err
		}
		for rows.Next() {
			if q == "PRAGMA integrity_check" {
				var msg string
				if err := rows.Scan(&msg); err != nil {
					rows.Close()
					return problems, err
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
				return problems, err
			}
			problems = append(problems, fmt.Sprintf("%s row %d refers to a missing %s row", table, rowid.Int64, parent))
		}
		rows.Close()
		if err := rows.Err(); err != nil {
			return problems, err
		}
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

// Plausible bounds of stored numbers: a time between 1990 and 2200 in
// unix nanoseconds, a counter below 2^40, an edge weight up to 1e9. A
// changed byte in a number almost always leaves them.
const (
	minNanos   = 631152000000000000  // 1990-01-01
	maxNanos   = 7258118400000000000 // 2200-01-01
	maxCounter = 1 << 40
	maxWeight  = 1e9
)

// CheckContentHashes reads every fact (superseded ones too), recomputes
// its content hash and calls bad for each fact whose stored content_hash
// differs or whose fields are not what the store writes: a column of the
// wrong type, text that is not UTF-8, a trust outside 0..1, a negative or
// huge counter, a time outside 1990..2200. Each fact read is also passed
// to each, when not nil, for deeper checks (verify --deep). It returns the
// number of facts checked.
func (s *Store) CheckContentHashes(ctx context.Context, bad func(id int64, err error), each func(CheckRow)) (int, error) {
	n := 0
	err := s.read(ctx, func(tx *sql.Tx) error {
		rows, err := tx.QueryContext(ctx, `SELECT id, namespace, CAST(content AS BLOB), content_hash,
			typeof(namespace) || typeof(content) || typeof(content_hash) || typeof(category) || typeof(tags) || typeof(source)
				|| typeof(trust) || typeof(retrieval_count) || typeof(helpful_count) || typeof(unhelpful_count)
				|| typeof(created_at) || typeof(updated_at),
			CAST(category AS BLOB), CAST(tags AS BLOB), CAST(source AS BLOB),
			CAST(coalesce(external_key, '') AS BLOB), CAST(coalesce(anchor_path, '') AS BLOB),
			CAST(coalesce(anchor_hash, '') AS BLOB), CAST(coalesce(model_id, '') AS BLOB),
			trust, retrieval_count, helpful_count, unhelpful_count, created_at, updated_at,
			typeof(external_key) IN ('null', 'text') AND typeof(anchor_path) IN ('null', 'text') AND typeof(anchor_hash) IN ('null', 'text')
				AND typeof(model_id) IN ('null', 'text') AND typeof(superseded_by) IN ('null', 'integer')
				AND typeof(embedding) IN ('null', 'blob') AND typeof(hrr) IN ('null', 'blob'),
			hrr
			FROM facts ORDER BY id`)
		if err != nil {
			return err
		}
		defer rows.Close()
		const types = "texttextintegertexttexttextrealintegerintegerintegerintegerinteger"
		for rows.Next() {
			var r CheckRow
			var hash int64
			var content []byte
			var typ string
			var texts [7][]byte
			var trust float64
			var nums [5]int64
			var otherTypes bool
			var hv sql.RawBytes
			if err := rows.Scan(&r.ID, &r.Namespace, &content, &hash, &typ,
				&texts[0], &texts[1], &texts[2], &texts[3], &texts[4], &texts[5], &texts[6],
				&trust, &nums[0], &nums[1], &nums[2], &nums[3], &nums[4], &otherTypes, &hv); err != nil {
				// A value of a type Scan cannot convert is damage too.
				bad(r.ID, fmt.Errorf("%w: a field does not read: %v", ErrFieldDamaged, err))
				continue
			}
			n++
			r.Content = string(content)
			switch {
			case typ != types || !otherTypes:
				bad(r.ID, fmt.Errorf("%w: a column holds a value of the wrong type", ErrFieldDamaged))
			case rowcodec.ContentHash(r.Content) != hash:
				bad(r.ID, fmt.Errorf("%w (%q)", ErrHashMismatch, clip(r.Content, 60)))
			default:
				if err := checkFields(r.Namespace, texts, trust, nums); err != nil {
					bad(r.ID, err)
				}
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
		return n, fmt.Errorf("check facts: %w", err)
	}
	return n, nil
}

// ErrFieldDamaged is wrapped by the problems the checks report for a
// stored value the store would never have written.
var ErrFieldDamaged = errors.New("a stored field is damaged")

// checkFields checks a fact's text fields are UTF-8 without NUL and its
// numbers plausible.
func checkFields(namespace string, texts [7][]byte, trust float64, nums [5]int64) error {
	names := [...]string{"category", "tags", "source", "external key", "anchor path", "anchor hash", "model id"}
	if !utf8.ValidString(namespace) || strings.ContainsRune(namespace, 0) {
		return fmt.Errorf("%w: the namespace is not valid text", ErrFieldDamaged)
	}
	for i, t := range texts {
		if !utf8.Valid(t) || bytes.IndexByte(t, 0) >= 0 {
			return fmt.Errorf("%w: the %s is not valid text", ErrFieldDamaged, names[i])
		}
	}
	if math.IsNaN(trust) || trust < 0 || trust > 1 {
		return fmt.Errorf("%w: trust %v is outside 0..1", ErrFieldDamaged, trust)
	}
	for i, c := range nums[:3] {
		if c < 0 || c >= maxCounter {
			return fmt.Errorf("%w: counter %d holds %d", ErrFieldDamaged, i, c)
		}
	}
	for _, t := range nums[3:] {
		if t < minNanos || t > maxNanos {
			return fmt.Errorf("%w: a time (%d ns) is outside 1990..2200", ErrFieldDamaged, t)
		}
	}
	return nil
}

// CheckEdges reads every edge and calls bad for each one the store would
// never have written: a column of the wrong type, a kind or origin that is
// not valid text, a weight that is not a finite number in 0..1e9, a time
// outside 1990..2200. It returns the number of edges checked.
func (s *Store) CheckEdges(ctx context.Context, bad func(src, dst int64, err error)) (int, error) {
	n := 0
	err := s.read(ctx, func(tx *sql.Tx) error {
		rows, err := tx.QueryContext(ctx, `SELECT src, dst, CAST(kind AS BLOB), CAST(origin AS BLOB), weight, created_at,
			typeof(src) || typeof(dst) || typeof(kind) || typeof(origin) || typeof(weight) || typeof(created_at)
			FROM edges ORDER BY src, dst, kind`)
		if err != nil {
			return err
		}
		defer rows.Close()
		for rows.Next() {
			var src, dst, at int64
			var kind, origin []byte
			var w float64
			var typ string
			if err := rows.Scan(&src, &dst, &kind, &origin, &w, &at, &typ); err != nil {
				bad(src, dst, fmt.Errorf("%w: a field does not read: %v", ErrFieldDamaged, err))
				continue
			}
			n++
			switch {
			case typ != "integerintegertexttextrealinteger" && typ != "integerintegertexttextintegerinteger":
				bad(src, dst, fmt.Errorf("%w: a column holds a value of the wrong type", ErrFieldDamaged))
			case !utf8.Valid(kind) || !utf8.Valid(origin) || bytes.IndexByte(kind, 0) >= 0 || bytes.IndexByte(origin, 0) >= 0:
				bad(src, dst, fmt.Errorf("%w: its kind or origin is not valid text", ErrFieldDamaged))
			case holomem.EdgeKind(kind).Validate() != nil:
				bad(src, dst, fmt.Errorf("%w: kind %q is not one the store writes", ErrFieldDamaged, clip(string(kind), 40)))
			case math.IsNaN(w) || math.IsInf(w, 0) || w < 0 || w > maxWeight:
				bad(src, dst, fmt.Errorf("%w: weight %v", ErrFieldDamaged, w))
			case at < minNanos || at > maxNanos:
				bad(src, dst, fmt.Errorf("%w: its time (%d ns) is outside 1990..2200", ErrFieldDamaged, at))
			}
		}
		return rows.Err()
	})
	if err != nil {
		return n, fmt.Errorf("check edges: %w", err)
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

// CheckFTSDeep rebuilds the full-text index from the facts in a temporary
// table and compares every entry (term, fact, column, position) with the
// stored index, for verify --deep: the structural check cannot see a
// changed term or position inside an index page. It returns a description
// of the differences ("" when none). A store whose index was built by
// another version of the index text (the next open rebuilds it) is
// skipped with ok false.
func (s *Store) CheckFTSDeep(ctx context.Context) (problem string, ok bool, err error) {
	if fp, err := s.Meta(ctx, ftsFingerprintKey); err != nil || fp != ftsFingerprint() {
		return "", false, nil
	}
	conn, err := s.rdb.Conn(ctx)
	if err != nil {
		return "", false, fmt.Errorf("check full-text index: %w", err)
	}
	defer conn.Close()
	defer conn.ExecContext(context.WithoutCancel(ctx), "DROP TABLE IF EXISTS temp.holomem_fts_want; DROP TABLE IF EXISTS temp.holomem_vocab_want; DROP TABLE IF EXISTS temp.holomem_vocab_have") //nolint:errcheck // temp tables go with the connection anyway
	for _, q := range []string{
		`CREATE VIRTUAL TABLE temp.holomem_fts_want USING fts5(content, tags, scope, content='', contentless_delete=1, tokenize="unicode61 remove_diacritics 2")`,
		`INSERT INTO temp.holomem_fts_want(rowid, content, tags, scope) SELECT id, holomem_fts(content), holomem_fts(tags), ` + scopeSQL + ` FROM main.facts`,
		`CREATE VIRTUAL TABLE temp.holomem_vocab_want USING fts5vocab(temp, holomem_fts_want, instance)`,
		`CREATE VIRTUAL TABLE temp.holomem_vocab_have USING fts5vocab(main, facts_fts, instance)`,
	} {
		if _, err := conn.ExecContext(ctx, q); err != nil {
			return "", false, fmt.Errorf("check full-text index: %w", err)
		}
	}
	var missing, extra int
	var docs sql.NullString
	err = conn.QueryRowContext(ctx, `WITH
		missing AS (SELECT term, doc, col, offset FROM temp.holomem_vocab_want EXCEPT SELECT term, doc, col, offset FROM temp.holomem_vocab_have),
		extra AS (SELECT term, doc, col, offset FROM temp.holomem_vocab_have EXCEPT SELECT term, doc, col, offset FROM temp.holomem_vocab_want)
		SELECT (SELECT count(*) FROM missing), (SELECT count(*) FROM extra),
			(SELECT group_concat(doc, ', ') FROM (SELECT DISTINCT doc FROM (SELECT doc FROM missing UNION SELECT doc FROM extra) ORDER BY doc LIMIT 10))`).Scan(&missing, &extra, &docs)
	if err != nil {
		return "", false, fmt.Errorf("check full-text index: %w", err)
	}
	if missing == 0 && extra == 0 {
		return "", true, nil
	}
	return fmt.Sprintf("the full-text index differs from the facts' text: %d entries missing, %d not derived from any fact (facts %s)", missing, extra, docs.String), true, nil
}
