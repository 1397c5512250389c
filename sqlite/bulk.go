package sqlite

import (
	"database/sql"
	"encoding/json"
	"fmt"

	"github.com/holomem/holomem"
)

// Batched forms of qFactByKey and qFactByHash for a JSON list of keys or
// hashes, named so plan_test.go can check they use an index.
const (
	qFactsByKeys   = "SELECT external_key, id FROM facts WHERE namespace = ? AND external_key IN (SELECT value FROM json_each(?))"
	qFactsByHashes = "SELECT content_hash, id, content, external_key IS NOT NULL FROM facts WHERE namespace = ? AND content_hash IN (SELECT value FROM json_each(?))"
)

// dupIndex answers createFact's duplicate lookups for one CreateFacts
// batch from a few statements run before the batch's first insert: asked
// one fact at a time, the two lookups were an eighth of the writer's time.
// createFact notes each fact it creates, so a later fact of the batch
// with the same key or content finds it, as the per-fact queries would.
type dupIndex struct {
	byKey  map[nsString]int64
	byHash map[nsHash]hashHit
}

type nsString struct{ ns, s string }

type nsHash struct {
	ns   string
	hash int64
}

// hashHit is the fact qFactByHash returns for a hash: key-less before
// keyed, then the oldest.
type hashHit struct {
	id      int64
	content string
	keyed   bool
}

// better reports whether h comes before o in qFactByHash's order.
func (h hashHit) better(o hashHit) bool {
	if h.keyed != o.keyed {
		return !h.keyed
	}
	return h.id < o.id
}

// prefetchDups reads the existing facts that share a key or a content
// hash with fs (derived[i] from fs[i]) into w.dups.
func (w *wtx) prefetchDups(fs []*holomem.Fact, ds []derived) error {
	d := &dupIndex{byKey: map[nsString]int64{}, byHash: map[nsHash]hashHit{}}
	type lists struct {
		keys   []string
		hashes []int64
	}
	byNS := map[string]*lists{}
	var order []string
	for i, f := range fs {
		l := byNS[f.Namespace]
		if l == nil {
			l = &lists{}
			byNS[f.Namespace] = l
			order = append(order, f.Namespace)
		}
		if f.ExternalKey != "" {
			l.keys = append(l.keys, f.ExternalKey)
		} else {
			l.hashes = append(l.hashes, ds[i].hash)
		}
	}
	for _, ns := range order {
		l := byNS[ns]
		if err := d.loadKeys(w, ns, l.keys); err != nil {
			return fmt.Errorf("find existing keys: %w", err)
		}
		if err := d.loadHashes(w, ns, l.hashes); err != nil {
			return fmt.Errorf("find existing content: %w", err)
		}
	}
	w.dups = d
	return nil
}

func (d *dupIndex) loadKeys(w *wtx, ns string, keys []string) error {
	if len(keys) == 0 {
		return nil
	}
	list, err := json.Marshal(keys)
	if err != nil {
		return err
	}
	return w.rows(qFactsByKeys, []any{ns, string(list)}, func(rows *sql.Rows) error {
		var key string
		var id int64
		if err := rows.Scan(&key, &id); err != nil {
			return err
		}
		d.byKey[nsString{ns, key}] = id
		return nil
	})
}

func (d *dupIndex) loadHashes(w *wtx, ns string, hashes []int64) error {
	if len(hashes) == 0 {
		return nil
	}
	return w.rows(qFactsByHashes, []any{ns, idList(hashes)}, func(rows *sql.Rows) error {
		var hash int64
		var h hashHit
		if err := rows.Scan(&hash, &h.id, &h.content, &h.keyed); err != nil {
			return err
		}
		d.note(ns, hash, h)
		return nil
	})
}

// note records a fact with the hash, keeping the one qFactByHash prefers.
func (d *dupIndex) note(ns string, hash int64, h hashHit) {
	k := nsHash{ns, hash}
	if old, ok := d.byHash[k]; !ok || h.better(old) {
		d.byHash[k] = h
	}
}

// noteCreated records a fact createFact just stored.
func (d *dupIndex) noteCreated(f *holomem.Fact, hash int64) {
	if f.ExternalKey != "" {
		d.byKey[nsString{f.Namespace, f.ExternalKey}] = f.ID
	}
	d.note(f.Namespace, hash, hashHit{id: f.ID, content: f.Content, keyed: f.ExternalKey != ""})
}

// find is createFact's lookup: the fact with f's key, or for a key-less
// fact the one qFactByHash finds, 0 when none. A hash shared with other
// content is ErrConflict.
func (d *dupIndex) find(f *holomem.Fact, hash int64) (int64, error) {
	if f.ExternalKey != "" {
		return d.byKey[nsString{f.Namespace, f.ExternalKey}], nil
	}
	h, ok := d.byHash[nsHash{f.Namespace, hash}]
	if !ok {
		return 0, nil
	}
	if h.content != f.Content {
		return 0, fmt.Errorf("%w: content hash collides with fact %d", holomem.ErrConflict, h.id)
	}
	return h.id, nil
}

// rows runs q in the write transaction and calls fn for each row.
func (w *wtx) rows(q string, args []any, fn func(*sql.Rows) error) error {
	rows, err := w.query(q, args...)
	return eachRow(rows, err, fn)
}

// eachRow calls fn for each row of a query's result (rows, err) and
// closes it.
func eachRow(rows *sql.Rows, err error, fn func(*sql.Rows) error) error {
	if err != nil {
		return err
	}
	defer rows.Close()
	for rows.Next() {
		if err := fn(rows); err != nil {
			return err
		}
	}
	return rows.Err()
}
