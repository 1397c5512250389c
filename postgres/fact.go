package postgres

import (
	"context"
	"errors"
	"fmt"
	"strconv"
	"strings"

	"github.com/jackc/pgx/v5"

	"github.com/holomem/holomem"
	"github.com/holomem/holomem/internal/rowcodec"
	"github.com/holomem/holomem/internal/sqlstore"
)

// Hot lookups, named so plan_test.go can check they use an index.
const (
	// qFactByHash prefers the key-less fact, then the oldest: keyed facts
	// may share content (migration 0002).
	qFactByHash      = "SELECT id, content FROM facts WHERE namespace = $1 AND content_hash = $2 ORDER BY external_key IS NOT NULL, id LIMIT 1"
	qOtherFactByHash = "SELECT id FROM facts WHERE namespace = $1 AND content_hash = $2 AND id <> $3 AND ($4 OR external_key IS NULL) ORDER BY id LIMIT 1"
	qFactByKey       = "SELECT id FROM facts WHERE namespace = $1 AND external_key = $2"
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
		cols += ", NULL::bytea"
	}
	if withHRR {
		cols += ", f.hrr"
	} else {
		cols += ", NULL::bytea"
	}
	return cols
}

func scanFact(r pgx.Row) (*holomem.Fact, error) {
	var (
		f                              holomem.Fact
		tags                           string
		extKey, anchorPath, anchorHash *string
		modelID                        *string
		supersededBy                   *int64
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
	if extKey != nil {
		f.ExternalKey = *extKey
	}
	f.CreatedAt, f.UpdatedAt = fromNanos(createdAt), fromNanos(updatedAt)
	if supersededBy != nil {
		f.SupersededBy = *supersededBy
	}
	if anchorPath != nil {
		f.Anchor = &holomem.Anchor{Path: *anchorPath}
		if anchorHash != nil {
			f.Anchor.Hash = *anchorHash
		}
	}
	if modelID != nil {
		f.ModelID = *modelID
	}
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
	f, err := scanFact(q.QueryRow(ctx, "SELECT "+factColumns(false, false)+" FROM facts f WHERE f.id = $1", id))
	if errors.Is(err, pgx.ErrNoRows) {
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

const qEntitiesOfFacts = `SELECT fe.fact_id, e.name FROM fact_entities fe
	JOIN entities e ON e.id = fe.entity_id
	WHERE fe.fact_id = ANY($1::bigint[])
	ORDER BY fe.fact_id, fe.pos, e.id`

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
	rows, err := q.Query(ctx, qEntitiesOfFacts, ids)
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

// CreateFact stores f after normalising and validating it, and fills its
// ID, timestamps and entities; see [holomem.Store]. Two processes storing
// the same content at once end with one fact: the second insert meets the
// unique index, does nothing, and loads the first one's fact.
func (s *Store) CreateFact(ctx context.Context, f *holomem.Fact) (bool, error) {
	created, _, err := s.createOne(ctx, f, false)
	return created, err
}

// CreateFactLogged is CreateFact that also returns the feed entry of the
// insert of f's row: the transaction's id with f's; see
// [holomem.OwnChangeFeeder].
func (s *Store) CreateFactLogged(ctx context.Context, f *holomem.Fact) (bool, holomem.FactChange, error) {
	return s.createOne(ctx, f, true)
}

// createOne runs CreateFact; with logged, it reads the transaction's id
// (the xid the feed's trigger recorded) after the insert.
func (s *Store) createOne(ctx context.Context, f *holomem.Fact, logged bool) (bool, holomem.FactChange, error) {
	var (
		created bool
		change  holomem.FactChange
	)
	err := s.update(ctx, func(w *wtx) error {
		change = holomem.FactChange{} // update may retry the transaction
		var err error
		if created, err = w.createFact(f); err != nil || !created || !logged {
			return err
		}
		change.ID = f.ID
		return w.queryRow("SELECT pg_current_xact_id()::text::bigint").Scan(&change.At)
	})
	if err != nil {
		return false, holomem.FactChange{}, fmt.Errorf("create fact: %w", err)
	}
	return created, change, nil
}

// CreateFacts stores many facts in one transaction with the same rules as
// CreateFact. Nothing is stored when one fact is invalid; the error names
// its index.
func (s *Store) CreateFacts(ctx context.Context, fs []*holomem.Fact) ([]bool, error) {
	var created []bool
	err := s.update(ctx, func(w *wtx) error {
		var err error
		created, err = w.createFactsBulk(fs)
		return err
	})
	if err != nil {
		return nil, fmt.Errorf("create facts: %w", err)
	}
	n := 0
	for _, c := range created {
		if c {
			n++
		}
	}
	s.bulkWritten.Add(int64(n))
	return created, nil
}

// existingFact returns the id of the fact f duplicates (same external key;
// for a key-less fact, same content), 0 when none.
func (w *wtx) existingFact(f *holomem.Fact, hash int64) (int64, error) {
	var existing int64
	if f.ExternalKey != "" {
		err := w.queryRow(qFactByKey, f.Namespace, f.ExternalKey).Scan(&existing)
		if err != nil && !errors.Is(err, pgx.ErrNoRows) {
			return 0, err
		}
		if err == nil {
			return existing, nil
		}
		// A keyed fact is identified by its key alone: two commits with
		// the same message are two facts.
		return 0, nil
	}
	var content string
	err := w.queryRow(qFactByHash, f.Namespace, hash).Scan(&existing, &content)
	switch {
	case errors.Is(err, pgx.ErrNoRows):
		return 0, nil
	case err != nil:
		return 0, err
	case content != f.Content:
		return 0, fmt.Errorf("%w: content hash collides with fact %d", holomem.ErrConflict, existing)
	}
	return existing, nil
}

func (w *wtx) createFact(f *holomem.Fact) (bool, error) {
	if err := rowcodec.PrepareFact(f); err != nil {
		return false, err
	}
	hash := rowcodec.ContentHash(f.Content)
	existing, err := w.existingFact(f, hash)
	if err != nil {
		return false, err
	}
	if existing == 0 {
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
		tags := rowcodec.JoinTags(f.Tags)
		// ON CONFLICT DO NOTHING: a concurrent transaction that stored the
		// same content or key first wins, and this one loads its fact.
		err := w.queryRow(`INSERT INTO facts (namespace, content, content_hash, category, tags, source, external_key,
			trust, retrieval_count, helpful_count, unhelpful_count, created_at, updated_at,
			anchor_path, anchor_hash, model_id, embedding, hrr)
			VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13, $14, $15, $16, $17, $18)
			ON CONFLICT DO NOTHING RETURNING id`,
			f.Namespace, f.Content, hash, f.Category, tags, f.Source, rowcodec.NullString(f.ExternalKey),
			f.Trust, f.RetrievalCount, f.HelpfulCount, f.UnhelpfulCount, nanos(f.CreatedAt), nanos(f.UpdatedAt),
			anchorPath, anchorHash, modelID, emb, hrr).Scan(&f.ID)
		switch {
		case err == nil:
			f.SupersededBy = 0
			w.touch(f.Namespace)
			if _, err := w.exec("INSERT INTO fact_search (id, namespace, live, fts) VALUES ($1, $2, true, $3::tsvector)",
				f.ID, f.Namespace, tsvectorText(f.Content, tags)); err != nil {
				return false, err
			}
			if f.Entities, err = w.linkEntities(f.ID, f.Namespace, f.Content, f.Tags); err != nil {
				return false, err
			}
			return true, nil
		case !errors.Is(err, pgx.ErrNoRows):
			return false, err
		}
		// Lost a race: the winner committed, and this statement's fresh
		// snapshot sees it.
		if existing, err = w.existingFact(f, hash); err != nil {
			return false, err
		}
		if existing == 0 {
			return false, fmt.Errorf("%w: fact conflicts with a concurrent write", holomem.ErrConflict)
		}
	}
	old, err := loadFact(w.ctx, w.tx, existing)
	if err != nil {
		return false, err
	}
	*f = *old
	return false, nil
}

// FindFactByID returns the fact with its entities and model id, without
// the embedding and HRR vectors. Returns ErrNotFound.
func (s *Store) FindFactByID(ctx context.Context, id int64) (*holomem.Fact, error) {
	var f *holomem.Fact
	err := s.readOne(ctx, func(tx querier) error {
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
	err := s.read(ctx, func(tx pgx.Tx) error {
		var id int64
		err := tx.QueryRow(ctx, qFactByKey, namespace, key).Scan(&id)
		if errors.Is(err, pgx.ErrNoRows) {
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

// args numbers bound parameters for a query built piece by piece.
type args []any

func (a *args) add(v any) string {
	*a = append(*a, v)
	return "$" + strconv.Itoa(len(*a))
}

// factWhere returns the conditions of filter over facts aliased f.
// ok is false when the filter can match nothing.
func factWhere(filter holomem.FactFilter, a *args) (cond string, ok bool) {
	var where []string
	if filter.Namespace != nil {
		where = append(where, "f.namespace = "+a.add(*filter.Namespace))
	}
	if filter.Category != nil {
		where = append(where, "f.category = "+a.add(*filter.Category))
	}
	if filter.Tag != nil {
		tag := rowcodec.StoreTags([]string{*filter.Tag})
		if len(tag) == 0 {
			return "", false
		}
		where = append(where, "strpos(' ' || f.tags || ' ', "+a.add(" "+tag[0]+" ")+") > 0")
	}
	if filter.Source != nil {
		where = append(where, "f.source = "+a.add(*filter.Source))
	}
	if filter.IDs != nil {
		if len(filter.IDs) == 0 {
			return "", false
		}
		where = append(where, "f.id = ANY("+a.add(filter.IDs)+"::bigint[])")
	}
	if filter.AfterID > 0 {
		where = append(where, "f.id > "+a.add(filter.AfterID))
	}
	if !filter.IncludeSuperseded {
		where = append(where, "f.superseded_by IS NULL")
	}
	if filter.WithoutEmbeddingFor != nil {
		where = append(where, "(f.embedding IS NULL OR f.model_id IS DISTINCT FROM "+a.add(*filter.WithoutEmbeddingFor)+")")
	}
	if len(where) == 0 {
		return "", true
	}
	return " WHERE " + strings.Join(where, " AND "), true
}

// FindFacts returns the facts matching the filter, ordered by id, and the
// total number that match ignoring Offset and Limit, both from one snapshot.
func (s *Store) FindFacts(ctx context.Context, filter holomem.FactFilter) ([]*holomem.Fact, int, error) {
	if filter.Offset < 0 || filter.Limit < 0 {
		return nil, 0, fmt.Errorf("find facts: %w: negative offset or limit", holomem.ErrInvalid)
	}
	var a args
	cond, ok := factWhere(filter, &a)
	if !ok {
		return nil, 0, nil
	}
	var (
		out   []*holomem.Fact
		total int
	)
	err := s.read(ctx, func(tx pgx.Tx) error {
		// A lean read (recall's candidates, the warm index's start-up pages)
		// skips the count: counting the rows after each page made loading
		// a store quadratic.
		if !filter.Lean {
			if err := tx.QueryRow(ctx, "SELECT count(*) FROM facts f"+cond, a...).Scan(&total); err != nil {
				return err
			}
		}
		pa := append(args(nil), a...)
		q := "SELECT " + factColumns(filter.WithEmbedding, filter.WithHRR) + " FROM facts f" + cond + " ORDER BY f.id"
		if filter.Limit > 0 || filter.Offset > 0 {
			var limit any // NULL: no limit
			if filter.Limit > 0 {
				limit = int64(filter.Limit)
			}
			q += " LIMIT " + pa.add(limit) + " OFFSET " + pa.add(int64(filter.Offset))
		}
		rows, err := tx.Query(ctx, q, pa...)
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

// UpdateFact applies upd and returns the new fact, with the SQLite store's
// rules: a content change re-derives entities and the tsvector, moves
// UpdatedAt and drops the embedding and (unless upd.HRR brings one) the HRR
// vector. Returns ErrNotFound, ErrInvalid or ErrConflict.
func (s *Store) UpdateFact(ctx context.Context, id int64, upd holomem.FactUpdate) (*holomem.Fact, error) {
	if err := upd.Validate(); err != nil {
		return nil, fmt.Errorf("update fact %d: %w", id, err)
	}
	var out *holomem.Fact
	err := s.update(ctx, func(w *wtx) error {
		// FOR UPDATE: a concurrent edit of the same fact waits, then reads
		// the committed row.
		if _, err := w.exec("SELECT 1 FROM facts WHERE id = $1 FOR UPDATE", id); err != nil {
			return err
		}
		cur, err := loadFact(w.ctx, w.tx, id)
		if err != nil {
			return err
		}
		var sets []string
		var a args
		set := func(col string, v any) { sets = append(sets, col+" = "+a.add(v)) }
		contentChanged := upd.Content != nil && *upd.Content != cur.Content
		content, tags := cur.Content, rowcodec.JoinTags(cur.Tags)
		if contentChanged {
			hash := rowcodec.ContentHash(*upd.Content)
			var other int64
			err := w.queryRow(qOtherFactByHash, cur.Namespace, hash, id, cur.ExternalKey == "").Scan(&other)
			if err == nil {
				return fmt.Errorf("%w: fact %d in namespace %q already has this content", holomem.ErrConflict, other, cur.Namespace)
			}
			if !errors.Is(err, pgx.ErrNoRows) {
				return err
			}
			content = *upd.Content
			set("content", content)
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
		tagsChanged := false
		if upd.Tags != nil {
			ts := rowcodec.StoreTags(*upd.Tags)
			for _, t := range ts {
				if len(t) > holomem.MaxLabelBytes {
					return fmt.Errorf("%w: tag is %d bytes; the limit is %d", holomem.ErrInvalid, len(t), holomem.MaxLabelBytes)
				}
			}
			if joined := rowcodec.JoinTags(ts); joined != tags {
				tags, tagsChanged = joined, true
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
			// Column names are ours; values are bound.
			if _, err := w.exec("UPDATE facts SET "+strings.Join(sets, ", ")+" WHERE id = "+a.add(id), a...); err != nil {
				return err
			}
			w.touch(cur.Namespace)
		}
		if contentChanged || tagsChanged {
			if _, err := w.exec("UPDATE fact_search SET fts = $1::tsvector WHERE id = $2", tsvectorText(content, tags), id); err != nil {
				return err
			}
		}
		if contentChanged {
			if _, err := sqlstore.Relink(w, id, cur.Namespace, *upd.Content, rowcodec.SplitTags(tags)); err != nil {
				return err
			}
		}
		out, err = loadFact(w.ctx, w.tx, id)
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
		var ns string
		err := w.queryRow("SELECT namespace FROM facts WHERE id = $1 FOR UPDATE", id).Scan(&ns)
		if errors.Is(err, pgx.ErrNoRows) {
			return fmt.Errorf("fact %d: %w", id, holomem.ErrNotFound)
		}
		if err != nil {
			return err
		}
		old, err := w.UnlinkEntities(id)
		if err != nil {
			return err
		}
		if _, err := w.exec("DELETE FROM facts WHERE id = $1", id); err != nil {
			return err
		}
		w.touch(ns)
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
		var ns string
		err := w.queryRow("SELECT trust, namespace FROM facts WHERE id = $1 FOR UPDATE", id).Scan(&trust, &ns)
		if errors.Is(err, pgx.ErrNoRows) {
			return fmt.Errorf("fact %d: %w", id, holomem.ErrNotFound)
		}
		if err != nil {
			return err
		}
		q := "UPDATE facts SET trust = $1, unhelpful_count = unhelpful_count + 1 WHERE id = $2"
		if helpful {
			q = "UPDATE facts SET trust = $1, helpful_count = helpful_count + 1 WHERE id = $2"
		}
		if _, err := w.exec(q, holomem.ApplyFeedback(trust, helpful), id); err != nil {
			return err
		}
		w.touch(ns)
		out, err = loadFact(w.ctx, w.tx, id)
		return err
	})
	if err != nil {
		return nil, fmt.Errorf("record feedback: %w", err)
	}
	return out, nil
}

// MarkRetrieved adds one to the retrieval count of each fact (once per
// distinct id). Unknown ids are ignored. Rows are locked in id order so
// two concurrent calls cannot deadlock.
func (s *Store) MarkRetrieved(ctx context.Context, ids []int64) error {
	if len(ids) == 0 {
		return nil
	}
	err := s.update(ctx, func(w *wtx) error {
		_, err := w.exec(`UPDATE facts f SET retrieval_count = f.retrieval_count + 1
			FROM (SELECT id FROM facts WHERE id = ANY($1::bigint[]) ORDER BY id FOR UPDATE) l
			WHERE f.id = l.id`, ids)
		return err
	})
	if err != nil {
		return fmt.Errorf("mark retrieved: %w", err)
	}
	return nil
}

// Supersede records that newer replaces older: a supersedes edge from newer
// to older, and older.SupersededBy = newer. See [holomem.Store].
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
