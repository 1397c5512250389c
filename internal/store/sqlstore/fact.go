package sqlstore

import (
	"database/sql"
	"errors"
	"fmt"
	"strings"

	"github.com/holomem/holomem"
	"github.com/holomem/holomem/internal/leaf/rowcodec"
)

// Hot lookups, named so the stores' plan tests can check they use an index.
const (
	// QFactByHash prefers the key-less fact, then the oldest: keyed facts
	// may share content.
	QFactByHash      = "SELECT id, content FROM facts WHERE namespace = ? AND content_hash = ? ORDER BY external_key IS NOT NULL, id LIMIT 1"
	QOtherFactByHash = "SELECT id FROM facts WHERE namespace = ? AND content_hash = ? AND id <> ? AND (? OR external_key IS NULL) ORDER BY id LIMIT 1"
	QFactByKey       = "SELECT id FROM facts WHERE namespace = ? AND external_key = ?"
)

// FactColumns lists the columns ScanFact reads, of facts aliased f.
// Embedding and HRR are large and selected only when asked for.
func (d *Dialect) FactColumns(withEmbedding, withHRR bool) string {
	cols := "f.id, f.namespace, f.content, f.category, f.tags, f.source, f.external_key, f.trust, " +
		"f.retrieval_count, f.helpful_count, f.unhelpful_count, f.created_at, f.updated_at, " +
		"f.superseded_by, f.anchor_path, f.anchor_hash, f.model_id"
	if withEmbedding {
		cols += ", f.embedding"
	} else {
		cols += ", " + d.NullBytes
	}
	if withHRR {
		cols += ", f.hrr"
	} else {
		cols += ", " + d.NullBytes
	}
	return cols
}

// ScanFact scans a row of FactColumns.
func ScanFact(r Row) (*holomem.Fact, error) {
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
	f.CreatedAt, f.UpdatedAt = FromNanos(createdAt), FromNanos(updatedAt)
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

// ScanFacts scans every row of rows with ScanFact.
func ScanFacts(rows Rows) ([]*holomem.Fact, error) {
	var out []*holomem.Fact
	for rows.Next() {
		f, err := ScanFact(rows)
		if err != nil {
			return nil, err
		}
		out = append(out, f)
	}
	return out, rows.Err()
}

// LoadFact reads one fact (without embedding and HRR) with its entities.
func LoadFact(tx Tx, d *Dialect, id int64) (*holomem.Fact, error) {
	f, err := ScanFact(tx.QueryRow("SELECT "+d.FactColumns(false, false)+" FROM facts f WHERE f.id = ?", id))
	if errors.Is(err, ErrNoRows) {
		return nil, fmt.Errorf("fact %d: %w", id, holomem.ErrNotFound)
	}
	if err != nil {
		return nil, fmt.Errorf("fact %d: %w", id, err)
	}
	if err := AttachEntities(tx, d, []*holomem.Fact{f}); err != nil {
		return nil, err
	}
	return f, nil
}

// AttachEntities fills Entities of each fact, in order of appearance.
func AttachEntities(tx Tx, d *Dialect, fs []*holomem.Fact) error {
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
	err := EachName(tx, d.qEntitiesOfFacts, d.IDs(ids), func(id int64, name string) {
		if f := byID[id]; f != nil {
			f.Entities = append(f.Entities, name)
		}
	})
	if err != nil {
		return fmt.Errorf("load entities: %w", err)
	}
	return nil
}

// EachName runs q and calls fn with each row of (id, name).
func EachName(tx Tx, q string, arg any, fn func(id int64, name string)) error {
	rows, err := tx.Query(q, arg)
	if err != nil {
		return err
	}
	defer rows.Close()
	for rows.Next() {
		var id int64
		var name string
		if err := rows.Scan(&id, &name); err != nil {
			return err
		}
		fn(id, name)
	}
	return rows.Err()
}

// ExistingFact returns the fact f duplicates, 0 when none: the one with
// its external key, or for a key-less fact the one with its content
// (ErrConflict when only the hash matches). A fact with an external key is
// identified by its key alone: two commits with the same message are two
// facts.
func ExistingFact(tx Tx, f *holomem.Fact, hash int64) (int64, error) {
	var existing int64
	if f.ExternalKey != "" {
		err := tx.QueryRow(QFactByKey, f.Namespace, f.ExternalKey).Scan(&existing)
		if err != nil && !errors.Is(err, ErrNoRows) {
			return 0, err
		}
		return existing, nil
	}
	var content string
	err := tx.QueryRow(QFactByHash, f.Namespace, hash).Scan(&existing, &content)
	switch {
	case errors.Is(err, ErrNoRows):
		return 0, nil
	case err != nil:
		return 0, err
	case content != f.Content:
		return 0, fmt.Errorf("%w: content hash collides with fact %d", holomem.ErrConflict, existing)
	}
	return existing, nil
}

// NewFactTimes sets a new fact's zero times to now (UpdatedAt to
// CreatedAt) at the nanosecond the store keeps, and returns the columns of
// its anchor and vectors (nil where it has none; the model id is dropped
// without an embedding).
func NewFactTimes(f *holomem.Fact, now int64) (anchorPath, anchorHash, modelID, emb, hrr any) {
	if f.CreatedAt.IsZero() {
		f.CreatedAt = FromNanos(now)
	}
	if f.UpdatedAt.IsZero() {
		f.UpdatedAt = f.CreatedAt
	}
	f.CreatedAt, f.UpdatedAt = FromNanos(f.CreatedAt.UnixNano()), FromNanos(f.UpdatedAt.UnixNano())
	if f.Anchor != nil {
		anchorPath, anchorHash = f.Anchor.Path, f.Anchor.Hash
	}
	if len(f.Embedding) > 0 {
		modelID, emb = f.ModelID, rowcodec.EncodeVector(f.Embedding)
	} else {
		f.ModelID = ""
	}
	if len(f.HRR) > 0 {
		hrr = f.HRR
	}
	return anchorPath, anchorHash, modelID, emb, hrr
}

// FactByKey returns the namespace's fact with external key key;
// ErrNotFound when there is none.
func FactByKey(tx Tx, d *Dialect, namespace, key string) (*holomem.Fact, error) {
	var id int64
	err := tx.QueryRow(QFactByKey, namespace, key).Scan(&id)
	if errors.Is(err, ErrNoRows) {
		return nil, fmt.Errorf("external key %q in namespace %q: %w", key, namespace, holomem.ErrNotFound)
	}
	if err != nil {
		return nil, err
	}
	return LoadFact(tx, d, id)
}

// FactsQuery is the statements FindFacts runs for a filter.
type FactsQuery struct {
	// Count counts the matches with CountArgs; Page reads them with
	// PageArgs.
	Count, Page         string
	CountArgs, PageArgs []any
	// None is set when the filter can match nothing.
	None bool
}

// FactsQuery builds the statements of FindFacts for filter.
func (d *Dialect) FactsQuery(filter holomem.FactFilter) FactsQuery {
	var where []string
	var args []any
	add := func(cond string, v ...any) {
		where, args = append(where, cond), append(args, v...)
	}
	if filter.Namespace != nil {
		add("f.namespace = ?", *filter.Namespace)
	}
	if filter.Category != nil {
		add("f.category = ?", *filter.Category)
	}
	if filter.Tag != nil {
		tag := rowcodec.StoreTags([]string{*filter.Tag})
		if len(tag) == 0 {
			return FactsQuery{None: true}
		}
		add(d.Substr+"(' ' || f.tags || ' ', ?) > 0", " "+tag[0]+" ")
	}
	if filter.Source != nil {
		add("f.source = ?", *filter.Source)
	}
	if filter.IDs != nil {
		if len(filter.IDs) == 0 {
			return FactsQuery{None: true}
		}
		add(d.InIDs("f.id"), d.IDs(filter.IDs))
	}
	if filter.AfterID > 0 {
		add("f.id > ?", filter.AfterID)
	}
	if !filter.IncludeSuperseded {
		add("f.superseded_by IS NULL")
	}
	if filter.WithoutEmbeddingFor != nil {
		add("(f.embedding IS NULL OR f.model_id "+d.DistinctFrom+" ?)", *filter.WithoutEmbeddingFor)
	}
	cond := ""
	if len(where) > 0 {
		cond = " WHERE " + strings.Join(where, " AND ")
	}
	q := FactsQuery{
		Count: "SELECT count(*) FROM facts f" + cond, CountArgs: args,
		Page: "SELECT " + d.FactColumns(filter.WithEmbedding, filter.WithHRR) + " FROM facts f" + cond + " ORDER BY f.id", PageArgs: args,
	}
	if filter.Limit > 0 || filter.Offset > 0 {
		limit := d.NoLimit
		if filter.Limit > 0 {
			limit = int64(filter.Limit)
		}
		q.Page += " LIMIT ? OFFSET ?"
		q.PageArgs = append(append([]any(nil), args...), limit, int64(filter.Offset))
	}
	return q
}

// FindFacts runs q (FactsQuery of filter) in tx: the page of facts and,
// unless filter.Lean, the count of all matches and the facts' entities.
// A lean read (recall's candidates, the warm index's start-up pages)
// skips the count: counting the rows after each page made loading a
// store quadratic.
func FindFacts(tx Tx, d *Dialect, filter holomem.FactFilter, q FactsQuery) ([]*holomem.Fact, int, error) {
	var total int
	if !filter.Lean {
		if err := tx.QueryRow(q.Count, q.CountArgs...).Scan(&total); err != nil {
			return nil, 0, err
		}
	}
	rows, err := tx.Query(q.Page, q.PageArgs...)
	if err != nil {
		return nil, 0, err
	}
	out, err := ScanFacts(rows)
	rows.Close()
	if err != nil {
		return nil, 0, err
	}
	if filter.Lean {
		return out, len(out), nil
	}
	return out, total, AttachEntities(tx, d, out)
}

// FactEdit is the UPDATE statement an edit of a fact makes (empty when
// it changes no column) and what it changes.
type FactEdit struct {
	Update string
	Args   []any
	// ContentChanged and TagsChanged say what the edit changes; Tags is
	// the stored tags column after it.
	ContentChanged, TagsChanged bool
	Tags                        string
}

// EditFact validates upd against the fact cur as stored and returns its
// statement: a content change moves UpdatedAt to now and drops the
// embedding and (unless upd.HRR brings one) the HRR vector; an Anchor
// with an empty Path removes the anchor. ErrConflict when the new content
// equals another fact's in the namespace.
func EditFact(tx Tx, cur *holomem.Fact, upd holomem.FactUpdate, now int64) (FactEdit, error) {
	var e FactEdit
	var sets []string
	set := func(col string, v any) {
		sets = append(sets, col+" = ?")
		e.Args = append(e.Args, v)
	}
	e.Tags = rowcodec.JoinTags(cur.Tags)
	e.ContentChanged = upd.Content != nil && *upd.Content != cur.Content
	if e.ContentChanged {
		hash := rowcodec.ContentHash(*upd.Content)
		var other int64
		// A key-less fact must not take the content of any other fact;
		// a keyed one only that of a key-less fact.
		err := tx.QueryRow(QOtherFactByHash, cur.Namespace, hash, cur.ID, cur.ExternalKey == "").Scan(&other)
		if err == nil {
			return e, fmt.Errorf("%w: fact %d in namespace %q already has this content", holomem.ErrConflict, other, cur.Namespace)
		}
		if !errors.Is(err, ErrNoRows) {
			return e, err
		}
		set("content", *upd.Content)
		set("content_hash", hash)
		set("updated_at", now)
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
		ts := rowcodec.StoreTags(*upd.Tags)
		for _, t := range ts {
			if len(t) > holomem.MaxLabelBytes {
				return e, fmt.Errorf("%w: tag is %d bytes; the limit is %d", holomem.ErrInvalid, len(t), holomem.MaxLabelBytes)
			}
		}
		if joined := rowcodec.JoinTags(ts); joined != e.Tags {
			e.Tags, e.TagsChanged = joined, true
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
		e.Update = "UPDATE facts SET " + strings.Join(sets, ", ") + " WHERE id = ?"
		e.Args = append(e.Args, cur.ID)
	}
	return e, nil
}

// DefaultNamespace returns ns trimmed, or holomem.DefaultNamespace when
// that is empty.
func DefaultNamespace(ns string) string {
	ns = strings.TrimSpace(ns)
	if ns == "" {
		return holomem.DefaultNamespace
	}
	return ns
}
