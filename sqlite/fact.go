package sqlite

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"runtime"
	"strings"
	"sync"

	"github.com/holomem/holomem"
	"github.com/holomem/holomem/internal/rowcodec"
	"github.com/holomem/holomem/internal/sqlstore"
	"github.com/holomem/holomem/text"
)

// Hot lookups, named so plan_test.go can check they use an index.
const (
	// qFactByHash prefers the key-less fact, then the oldest: keyed facts
	// may share content (migration 0006).
	qFactByHash      = "SELECT id, content FROM facts WHERE namespace = ? AND content_hash = ? ORDER BY external_key IS NOT NULL, id LIMIT 1"
	qOtherFactByHash = "SELECT id FROM facts WHERE namespace = ? AND content_hash = ? AND id <> ? AND (? OR external_key IS NULL) ORDER BY id LIMIT 1"
	qFactByKey       = "SELECT id FROM facts WHERE namespace = ? AND external_key = ?"
)

// factColumns lists the columns scanFact reads. Embedding and HRR are large
// and selected only when asked for.
func factColumns(withEmbedding, withHRR bool) string {
	cols := "f.id, f.namespace, f.content, f.category, f.tags, f.source, f.external_key, f.trust, " +
		"f.retrieval_count, f.helpful_count, f.unhelpful_count, f.created_at, f.updated_at, " +
		"f.superseded_by, f.anchor_path, f.anchor_hash, f.model_id"
	if withEmbedding {
		cols += ", f.embedding"
	} else {
		cols += ", NULL"
	}
	if withHRR {
		cols += ", f.hrr"
	} else {
		cols += ", NULL"
	}
	return cols
}

type rowScanner interface{ Scan(dest ...any) error }

func scanFact(r rowScanner) (*holomem.Fact, error) {
	var (
		f                              holomem.Fact
		tags                           string
		extKey, anchorPath, anchorHash sql.NullString
		modelID                        sql.NullString
		supersededBy                   sql.NullInt64
		createdAt, updatedAt           int64
		embedding, hrr                 []byte
	)
	err := r.Scan(&f.ID, &f.Namespace, &f.Content, &f.Category, &tags, &f.Source, &extKey, &f.Trust,
		&f.RetrievalCount, &f.HelpfulCount, &f.UnhelpfulCount, &createdAt, &updatedAt,
		&supersededBy, &anchorPath, &anchorHash, &modelID, &embedding, &hrr)
	if err != nil {
		return nil, err
	}
	f.Tags = rowcodec.SplitTags(tags)
	f.ExternalKey = extKey.String
	f.CreatedAt, f.UpdatedAt = fromNanos(createdAt), fromNanos(updatedAt)
	f.SupersededBy = supersededBy.Int64
	if anchorPath.Valid {
		f.Anchor = &holomem.Anchor{Path: anchorPath.String, Hash: anchorHash.String}
	}
	f.ModelID = modelID.String
	if len(embedding) > 0 {
		if f.Embedding, err = rowcodec.DecodeVector(embedding); err != nil {
			return nil, fmt.Errorf("fact %d: %w", f.ID, err)
		}
	}
	if len(hrr) > 0 {
		f.HRR = hrr
	}
	return &f, nil
}

// loadFact reads one fact (without embedding and HRR) with its entities.
func loadFact(ctx context.Context, q querier, id int64) (*holomem.Fact, error) {
	f, err := scanFact(q.QueryRowContext(ctx, "SELECT "+factColumns(false, false)+" FROM facts f WHERE f.id = ?", id))
	if errors.Is(err, sql.ErrNoRows) {
		return nil, fmt.Errorf("fact %d: %w", id, holomem.ErrNotFound)
	}
	if err != nil {
		return nil, fmt.Errorf("fact %d: %w", id, err)
	}
	if err := attachEntities(ctx, q, []*holomem.Fact{f}); err != nil {
		return nil, err
	}
	return f, nil
}

// attachEntities fills Entities of each fact, in order of appearance.
func attachEntities(ctx context.Context, q querier, fs []*holomem.Fact) error {
	if len(fs) == 0 {
		return nil
	}
	byID := make(map[int64]*holomem.Fact, len(fs))
	ids := make([]int64, 0, len(fs))
	for _, f := range fs {
		f.Entities = nil
		byID[f.ID] = f
		ids = append(ids, f.ID)
	}
	rows, err := q.QueryContext(ctx, `SELECT fe.fact_id, e.name FROM fact_entities fe
		JOIN entities e ON e.id = fe.entity_id
		WHERE fe.fact_id IN (SELECT value FROM json_each(?))
		ORDER BY fe.fact_id, fe.pos, e.id`, idList(ids))
	if err != nil {
		return fmt.Errorf("load entities: %w", err)
	}
	defer rows.Close()
	for rows.Next() {
		var id int64
		var name string
		if err := rows.Scan(&id, &name); err != nil {
			return fmt.Errorf("load entities: %w", err)
		}
		if f := byID[id]; f != nil {
			f.Entities = append(f.Entities, name)
		}
	}
	if err := rows.Err(); err != nil {
		return fmt.Errorf("load entities: %w", err)
	}
	return nil
}

// txQuerier adapts a write transaction to querier.
type txQuerier struct{ w *wtx }

func (q txQuerier) QueryContext(ctx context.Context, s string, args ...any) (*sql.Rows, error) {
	return q.w.query(s, args...)
}

func (q txQuerier) QueryRowContext(ctx context.Context, s string, args ...any) *sql.Row {
	return q.w.queryRow(s, args...)
}

// CreateFact stores f after normalising and validating it, and fills its
// ID, timestamps and entities. CreatedAt, UpdatedAt and the counters are
// kept when the caller sets them (imports preserve history); zero times
// become now. f.ID is ignored: the store assigns ids. When the namespace
// already holds the same external key, or f has no key and the namespace
// holds the same content, the existing fact is loaded into f and created is
// false. Returns ErrInvalid for bad
// input.
func (s *Store) CreateFact(ctx context.Context, f *holomem.Fact) (bool, error) {
	created, _, err := s.createOne(ctx, f, false)
	return created, err
}

// CreateFactLogged is CreateFact that also returns the seq of the feed row
// the insert of f's row wrote; see [holomem.OwnChangeFeeder].
func (s *Store) CreateFactLogged(ctx context.Context, f *holomem.Fact) (bool, holomem.FactChange, error) {
	return s.createOne(ctx, f, true)
}

// qOwnChange finds, in the transaction that inserted fact_id, the feed row
// its insert trigger wrote: the first of fact_id's after the head the
// transaction started from (the write lock keeps other writers out).
const qOwnChange = "SELECT seq FROM fact_changes WHERE seq > ? AND fact_id = ? ORDER BY seq LIMIT 1"

// createOne runs CreateFact; with logged, it reads the feed head before
// the insert and the insert's feed row after it, in the same transaction.
func (s *Store) createOne(ctx context.Context, f *holomem.Fact, logged bool) (bool, holomem.FactChange, error) {
	if err := rowcodec.PrepareFact(f); err != nil {
		return false, holomem.FactChange{}, fmt.Errorf("create fact: %w", err)
	}
	p := deriveFact(f, nil)
	var (
		created bool
		change  holomem.FactChange
	)
	err := s.update(ctx, func(w *wtx) error {
		var head int64
		if logged {
			if err := w.queryRow(qFactChangeHead).Scan(&head); err != nil {
				return fmt.Errorf("change feed: %w", err)
			}
		}
		if err := w.prefetchLinks([]*holomem.Fact{f}, []derived{p}); err != nil {
			return err
		}
		var err error
		if created, err = w.createFact(f, &p); err != nil {
			return err
		}
		if created && logged {
			if err := w.queryRow(qOwnChange, head, f.ID).Scan(&change.At); err != nil {
				return fmt.Errorf("change feed: %w", err)
			}
			change.ID = f.ID
		}
		return w.flushFTS()
	})
	if err != nil {
		return false, holomem.FactChange{}, fmt.Errorf("create fact: %w", err)
	}
	return created, change, nil
}

// CreateFacts stores many facts in one transaction with the same rules as
// CreateFact. Nothing is stored when one fact is invalid; the error names
// its index. It is [Store.PrepareFacts] and its write at once.
func (s *Store) CreateFacts(ctx context.Context, fs []*holomem.Fact) ([]bool, error) {
	write, err := s.PrepareFacts(fs, nil)
	if err != nil {
		return nil, err
	}
	return write(ctx)
}

// PrepareFacts is CreateFacts in two steps: it validates fs and derives
// what does not need the database (content hashes, the indexed text with
// its stems, entity extraction) on all cores now, and returns the write,
// which takes the write lock and stores them in one transaction. A bulk
// import prepares the next batch while the write of one runs (see
// retrieve.Memory.ImportBatches), so the single writer only writes. The
// write must run once, and fs must not change in between. known, when
// not nil, holds a caller's text.Extract(content, nil) per fact (nil
// where it has none): a fact without tags whose content is unchanged
// takes its entities from there instead of extracting them again.
func (s *Store) PrepareFacts(fs []*holomem.Fact, known []*text.Extraction) (write func(context.Context) ([]bool, error), err error) {
	for i, f := range fs {
		if err := rowcodec.PrepareFact(f); err != nil {
			return nil, fmt.Errorf("create facts: fact %d: %w", i, err)
		}
	}
	derived := deriveFacts(fs, known)
	return func(ctx context.Context) ([]bool, error) { return s.createFacts(ctx, fs, derived) }, nil
}

// createFacts writes fs (prepared, with derived[i] from fs[i]) in one
// transaction.
func (s *Store) createFacts(ctx context.Context, fs []*holomem.Fact, derived []derived) ([]bool, error) {
	created := make([]bool, len(fs))
	err := s.update(ctx, func(w *wtx) error {
		if err := w.growWriteCache(); err != nil {
			return err
		}
		if err := w.prefetchLinks(fs, derived); err != nil {
			return err
		}
		if err := w.prefetchDups(fs, derived); err != nil {
			return err
		}
		for i, f := range fs {
			if i%256 == 0 {
				if err := ctx.Err(); err != nil {
					return err
				}
			}
			c, err := w.createFact(f, &derived[i])
			if err != nil {
				return fmt.Errorf("fact %d: %w", i, err)
			}
			created[i] = c
		}
		return w.flushFTS()
	})
	if err != nil {
		return nil, fmt.Errorf("create facts: %w", err)
	}
	return created, nil
}

// bulkCacheKiB is the write connection's page cache once it has run a
// bulk write: SQLite's default of 2 MiB holds less than the facts indexes
// of 100,000 facts, and each batch's inserts, at random places in them,
// then spilled and re-read pages (5% of a 100k import's CPU).
const bulkCacheKiB = 64 << 10

// growWriteCache grows the write connection's page cache to bulkCacheKiB
// the first time CreateFacts runs, for the rest of the process: processes
// that only add facts one at a time (serve) keep the default.
func (w *wtx) growWriteCache() error {
	if w.s.bulkCache {
		return nil
	}
	if _, err := w.tx.ExecContext(w.ctx, fmt.Sprintf("PRAGMA cache_size = -%d", bulkCacheKiB)); err != nil {
		return fmt.Errorf("page cache: %w", err)
	}
	w.s.bulkCache = true
	return nil
}

// derived is what createFact needs from a fact that does not depend on the
// database.
type derived struct {
	hash          int64
	content, tags string // indexed text (see text.IndexText)
	entities      []text.Entity
}

// deriveFact derives f's row parts; known, when not nil, is the caller's
// text.Extract(content, nil) (see PrepareFacts).
func deriveFact(f *holomem.Fact, known *text.Extraction) derived {
	var ents []text.Entity
	if known != nil && len(f.Tags) == 0 && known.Content == f.Content {
		ents = known.Entities
	} else {
		ents = extractEntities(f.Content, f.Tags)
	}
	return derived{
		hash:     rowcodec.ContentHash(f.Content),
		content:  indexText(f.Content),
		tags:     indexText(rowcodec.JoinTags(f.Tags)),
		entities: ents,
	}
}

// deriveFacts runs deriveFact over fs on up to GOMAXPROCS goroutines. It
// only reads the facts; known is as for PrepareFacts.
func deriveFacts(fs []*holomem.Fact, known []*text.Extraction) []derived {
	out := make([]derived, len(fs))
	workers := min(runtime.GOMAXPROCS(0), max(1, len(fs)/32))
	var wg sync.WaitGroup
	for w := range workers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := w; i < len(fs); i += workers {
				var k *text.Extraction
				if i < len(known) {
					k = known[i]
				}
				out[i] = deriveFact(fs[i], k)
			}
		}()
	}
	wg.Wait()
	return out
}

// createFact writes f, already through rowcodec.PrepareFact, with what
// deriveFact computed for it. Its full-text row waits in w until flushFTS.
func (w *wtx) createFact(f *holomem.Fact, d *derived) (bool, error) {
	hash := d.hash
	existing, err := w.existingFact(f, hash)
	if err != nil {
		return false, err
	}
	if existing != 0 {
		old, err := loadFact(w.ctx, txQuerier{w}, existing)
		if err != nil {
			return false, err
		}
		*f = *old
		return false, nil
	}

	if f.CreatedAt.IsZero() {
		f.CreatedAt = w.now
	}
	if f.UpdatedAt.IsZero() {
		f.UpdatedAt = f.CreatedAt
	}
	f.CreatedAt, f.UpdatedAt = fromNanos(nanos(f.CreatedAt)), fromNanos(nanos(f.UpdatedAt))
	var anchorPath, anchorHash any
	if f.Anchor != nil {
		anchorPath, anchorHash = f.Anchor.Path, f.Anchor.Hash
	}
	var modelID, emb, hrr any
	if len(f.Embedding) > 0 {
		modelID, emb = f.ModelID, rowcodec.EncodeVector(f.Embedding)
	} else {
		f.ModelID = ""
	}
	if len(f.HRR) > 0 {
		hrr = f.HRR
	}
	// The id is one past the largest ever given (migration 0005), never
	// max(id)+1: a forgotten fact's id must not name a new one.
	res, err := w.exec(`INSERT INTO facts (id, namespace, content, content_hash, category, tags, source, external_key,
		trust, retrieval_count, helpful_count, unhelpful_count, created_at, updated_at,
		anchor_path, anchor_hash, model_id, embedding, hrr)
		VALUES ((SELECT last + 1 FROM fact_ids WHERE only = 1), ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
		f.Namespace, f.Content, hash, f.Category, rowcodec.JoinTags(f.Tags), f.Source, rowcodec.NullString(f.ExternalKey),
		f.Trust, f.RetrievalCount, f.HelpfulCount, f.UnhelpfulCount, nanos(f.CreatedAt), nanos(f.UpdatedAt),
		anchorPath, anchorHash, modelID, emb, hrr)
	if err != nil {
		return false, err
	}
	if f.ID, err = res.LastInsertId(); err != nil {
		return false, err
	}
	f.SupersededBy = 0
	w.fts = append(w.fts, ftsRow{id: f.ID, content: d.content, tags: d.tags, scope: liveScope(f.Namespace)})
	w.link.noteOwn(f.ID, f.Namespace, d.content, d.tags)
	if f.Entities, err = w.linkEntities(f.ID, f.Namespace, d.entities); err != nil {
		return false, err
	}
	w.link.noteKeys(f.ID, d.entities) // for promoteTerm of later facts
	if w.dups != nil {
		w.dups.noteCreated(f, hash)
	}
	return true, nil
}

// existingFact returns the fact f duplicates, 0 when none: the one with
// its external key, or for a key-less fact the one with its content
// (ErrConflict when only the hash matches). A fact with an external key is
// identified by its key alone: two commits with the same message are two
// facts. CreateFacts answers from w.dups (see prefetchDups).
func (w *wtx) existingFact(f *holomem.Fact, hash int64) (int64, error) {
	if w.dups != nil {
		return w.dups.find(f, hash)
	}
	var existing int64
	if f.ExternalKey != "" {
		err := w.queryRow(qFactByKey, f.Namespace, f.ExternalKey).Scan(&existing)
		if err != nil && !errors.Is(err, sql.ErrNoRows) {
			return 0, err
		}
		return existing, nil
	}
	var content string
	err := w.queryRow(qFactByHash, f.Namespace, hash).Scan(&existing, &content)
	switch {
	case errors.Is(err, sql.ErrNoRows):
		return 0, nil
	case err != nil:
		return 0, err
	case content != f.Content:
		return 0, fmt.Errorf("%w: content hash collides with fact %d", holomem.ErrConflict, existing)
	}
	return existing, nil
}

// FindFactByID returns the fact with its entities and model id, without
// the embedding and HRR vectors (use FindFacts with IDs for those).
// Returns ErrNotFound if no fact has that id.
func (s *Store) FindFactByID(ctx context.Context, id int64) (*holomem.Fact, error) {
	var f *holomem.Fact
	err := s.read(ctx, func(tx *sql.Tx) error {
		var err error
		f, err = loadFact(ctx, tx, id)
		return err
	})
	if err != nil {
		return nil, fmt.Errorf("find fact: %w", err)
	}
	return f, nil
}

// FindFactByExternalKey returns ErrNotFound if the namespace has no such key.
func (s *Store) FindFactByExternalKey(ctx context.Context, namespace, key string) (*holomem.Fact, error) {
	namespace = defaultNamespace(namespace)
	key = strings.TrimSpace(key)
	var f *holomem.Fact
	err := s.read(ctx, func(tx *sql.Tx) error {
		var id int64
		err := tx.QueryRowContext(ctx, qFactByKey, namespace, key).Scan(&id)
		if errors.Is(err, sql.ErrNoRows) {
			return fmt.Errorf("external key %q in namespace %q: %w", key, namespace, holomem.ErrNotFound)
		}
		if err != nil {
			return err
		}
		f, err = loadFact(ctx, tx, id)
		return err
	})
	if err != nil {
		return nil, fmt.Errorf("find fact: %w", err)
	}
	return f, nil
}

func defaultNamespace(ns string) string {
	ns = strings.TrimSpace(ns)
	if ns == "" {
		return holomem.DefaultNamespace
	}
	return ns
}

// FindFacts returns the facts matching the filter, ordered by id, and the
// total number that match ignoring Offset and Limit. Both come from one
// snapshot of the database.
func (s *Store) FindFacts(ctx context.Context, filter holomem.FactFilter) ([]*holomem.Fact, int, error) {
	if filter.Offset < 0 || filter.Limit < 0 {
		return nil, 0, fmt.Errorf("find facts: %w: negative offset or limit", holomem.ErrInvalid)
	}
	var where []string
	var args []any
	if filter.Namespace != nil {
		where, args = append(where, "f.namespace = ?"), append(args, *filter.Namespace)
	}
	if filter.Category != nil {
		where, args = append(where, "f.category = ?"), append(args, *filter.Category)
	}
	if filter.Tag != nil {
		tag := rowcodec.StoreTags([]string{*filter.Tag})
		if len(tag) == 0 {
			return nil, 0, nil
		}
		where, args = append(where, "instr(' ' || f.tags || ' ', ?) > 0"), append(args, " "+tag[0]+" ")
	}
	if filter.Source != nil {
		where, args = append(where, "f.source = ?"), append(args, *filter.Source)
	}
	if filter.IDs != nil {
		if len(filter.IDs) == 0 {
			return nil, 0, nil
		}
		where, args = append(where, "f.id IN (SELECT value FROM json_each(?))"), append(args, idList(filter.IDs))
	}
	if filter.AfterID > 0 {
		where, args = append(where, "f.id > ?"), append(args, filter.AfterID)
	}
	if !filter.IncludeSuperseded {
		where = append(where, "f.superseded_by IS NULL")
	}
	if filter.WithoutEmbeddingFor != nil {
		where = append(where, "(f.embedding IS NULL OR f.model_id IS NOT ?)")
		args = append(args, *filter.WithoutEmbeddingFor)
	}
	cond := ""
	if len(where) > 0 {
		cond = " WHERE " + strings.Join(where, " AND ")
	}
	var (
		out   []*holomem.Fact
		total int
	)
	q := "SELECT " + factColumns(filter.WithEmbedding, filter.WithHRR) + " FROM facts f" + cond + " ORDER BY f.id"
	pargs := args
	if filter.Limit > 0 || filter.Offset > 0 {
		limit := int64(filter.Limit)
		if limit == 0 {
			limit = -1
		}
		q += " LIMIT ? OFFSET ?"
		pargs = append(append([]any(nil), args...), limit, filter.Offset)
	}
	var st *sql.Stmt
	if filter.Lean {
		st = s.readStmt(ctx, q) // recall's candidate load: the same query every time
	}
	err := s.read(ctx, func(tx *sql.Tx) error {
		if !filter.Lean {
			if err := tx.QueryRowContext(ctx, "SELECT count(*) FROM facts f"+cond, args...).Scan(&total); err != nil {
				return err
			}
		}
		rows, err := txQuery(ctx, tx, st, q, pargs...)
		if err != nil {
			return err
		}
		defer rows.Close()
		for rows.Next() {
			f, err := scanFact(rows)
			if err != nil {
				return err
			}
			out = append(out, f)
		}
		if err := rows.Err(); err != nil {
			return err
		}
		rows.Close()
		if filter.Lean {
			total = len(out)
			return nil
		}
		return attachEntities(ctx, tx, out)
	})
	if err != nil {
		return nil, 0, fmt.Errorf("find facts: %w", err)
	}
	return out, total, nil
}

// UpdateFact applies upd and returns the new fact. Changing the content
// re-derives entities and the full-text index, moves UpdatedAt, and drops
// the embedding (it described the old text) and the HRR vector unless
// upd.HRR brings a new one. Other edits leave UpdatedAt alone. An Anchor
// with an empty Path removes the anchor. Returns ErrNotFound, ErrInvalid,
// or ErrConflict when the new content equals another fact's in the namespace.
func (s *Store) UpdateFact(ctx context.Context, id int64, upd holomem.FactUpdate) (*holomem.Fact, error) {
	if err := upd.Validate(); err != nil {
		return nil, fmt.Errorf("update fact %d: %w", id, err)
	}
	var out *holomem.Fact
	err := s.update(ctx, func(w *wtx) error {
		cur, err := loadFact(w.ctx, txQuerier{w}, id)
		if err != nil {
			return err
		}
		var sets []string
		var args []any
		set := func(col string, v any) {
			sets = append(sets, col+" = ?")
			args = append(args, v)
		}
		contentChanged := upd.Content != nil && *upd.Content != cur.Content
		if contentChanged {
			hash := rowcodec.ContentHash(*upd.Content)
			var other int64
			// A key-less fact must not take the content of any other fact;
			// a keyed one only that of a key-less fact (see createFact).
			err := w.queryRow(qOtherFactByHash, cur.Namespace, hash, id, cur.ExternalKey == "").Scan(&other)
			if err == nil {
				return fmt.Errorf("%w: fact %d in namespace %q already has this content", holomem.ErrConflict, other, cur.Namespace)
			}
			if !errors.Is(err, sql.ErrNoRows) {
				return err
			}
			set("content", *upd.Content)
			set("content_hash", hash)
			set("updated_at", nanos(w.now))
			set("model_id", nil)
			set("embedding", nil)
			if len(upd.HRR) == 0 {
				set("hrr", nil)
			}
		}
		if len(upd.HRR) > 0 {
			set("hrr", upd.HRR)
		}
		if upd.Category != nil {
			c := strings.TrimSpace(*upd.Category)
			if c == "" {
				c = holomem.DefaultCategory
			}
			set("category", c)
		}
		if upd.Tags != nil {
			tags := rowcodec.StoreTags(*upd.Tags)
			for _, t := range tags {
				if len(t) > holomem.MaxLabelBytes {
					return fmt.Errorf("%w: tag is %d bytes; the limit is %d", holomem.ErrInvalid, len(t), holomem.MaxLabelBytes)
				}
			}
			if joined := rowcodec.JoinTags(tags); joined != rowcodec.JoinTags(cur.Tags) {
				set("tags", joined)
			}
		}
		if upd.Source != nil {
			set("source", strings.TrimSpace(*upd.Source))
		}
		if upd.Trust != nil {
			set("trust", *upd.Trust)
		}
		if upd.Anchor != nil {
			if strings.TrimSpace(upd.Anchor.Path) == "" {
				set("anchor_path", nil)
				set("anchor_hash", nil)
			} else {
				set("anchor_path", upd.Anchor.Path)
				set("anchor_hash", upd.Anchor.Hash)
			}
		}
		if len(sets) > 0 {
			// Column names come from the constants above; values are bound.
			if _, err := w.tx.ExecContext(w.ctx, "UPDATE facts SET "+strings.Join(sets, ", ")+" WHERE id = ?", append(args, id)...); err != nil {
				return err
			}
		}
		if contentChanged {
			tags := cur.Tags
			if upd.Tags != nil {
				tags = *upd.Tags
			}
			if _, err := sqlstore.Relink(w, id, cur.Namespace, *upd.Content, tags); err != nil {
				return err
			}
		}
		out, err = loadFact(w.ctx, txQuerier{w}, id)
		return err
	})
	if err != nil {
		return nil, fmt.Errorf("update fact %d: %w", id, err)
	}
	return out, nil
}

// DeleteFact removes a fact, its entity links and its edges (foreign keys
// cascade), and entities no other fact mentions. Facts it superseded become
// visible again. Returns ErrNotFound.
func (s *Store) DeleteFact(ctx context.Context, id int64) error {
	err := s.update(ctx, func(w *wtx) error {
		old, err := w.UnlinkEntities(id)
		if err != nil {
			return err
		}
		res, err := w.exec("DELETE FROM facts WHERE id = ?", id)
		if err != nil {
			return err
		}
		if n, _ := res.RowsAffected(); n == 0 {
			return fmt.Errorf("fact %d: %w", id, holomem.ErrNotFound)
		}
		return w.PruneEntities(old)
	})
	if err != nil {
		return fmt.Errorf("delete fact: %w", err)
	}
	return nil
}

// RecordFeedback moves trust by one vote ([holomem.ApplyFeedback]) and
// counts it, without touching UpdatedAt. Returns ErrNotFound.
func (s *Store) RecordFeedback(ctx context.Context, id int64, helpful bool) (*holomem.Fact, error) {
	var out *holomem.Fact
	err := s.update(ctx, func(w *wtx) error {
		var trust float64
		err := w.queryRow("SELECT trust FROM facts WHERE id = ?", id).Scan(&trust)
		if errors.Is(err, sql.ErrNoRows) {
			return fmt.Errorf("fact %d: %w", id, holomem.ErrNotFound)
		}
		if err != nil {
			return err
		}
		q := "UPDATE facts SET trust = ?, unhelpful_count = unhelpful_count + 1 WHERE id = ?"
		if helpful {
			q = "UPDATE facts SET trust = ?, helpful_count = helpful_count + 1 WHERE id = ?"
		}
		if _, err := w.exec(q, holomem.ApplyFeedback(trust, helpful), id); err != nil {
			return err
		}
		out, err = loadFact(w.ctx, txQuerier{w}, id)
		return err
	})
	if err != nil {
		return nil, fmt.Errorf("record feedback: %w", err)
	}
	return out, nil
}

// MarkRetrieved adds one to the retrieval count of each fact (once per
// distinct id). Unknown ids are ignored: a fact forgotten between recall and
// this call is not an error.
func (s *Store) MarkRetrieved(ctx context.Context, ids []int64) error {
	if len(ids) == 0 {
		return nil
	}
	err := s.update(ctx, func(w *wtx) error {
		_, err := w.exec("UPDATE facts SET retrieval_count = retrieval_count + 1 WHERE id IN (SELECT value FROM json_each(?))", idList(ids))
		return err
	})
	if err != nil {
		return fmt.Errorf("mark retrieved: %w", err)
	}
	return nil
}

// Supersede records that newer replaces older: a supersedes edge from newer
// to older, and older.SupersededBy = newer, which hides older from recall.
// Both facts must exist (ErrNotFound) and live in the same namespace;
// a fact cannot supersede itself or the fact that supersedes it (ErrInvalid).
func (s *Store) Supersede(ctx context.Context, older, newer int64) error {
	err := s.update(ctx, func(w *wtx) error {
		_, err := w.createEdge(&holomem.Edge{From: newer, To: older, Kind: holomem.EdgeSupersedes, Weight: 1, Origin: holomem.OriginUser})
		return err
	})
	if err != nil {
		return fmt.Errorf("supersede %d with %d: %w", older, newer, err)
	}
	return nil
}
