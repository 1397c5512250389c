package postgres

import (
	"fmt"
	"slices"

	"github.com/jackc/pgx/v5"

	"github.com/holomem/holomem"
	"github.com/holomem/holomem/internal/leaf/rowcodec"
	"github.com/holomem/holomem/internal/store/sqlstore"
	"github.com/holomem/holomem/text"
)

// createFactsBulk is CreateFacts with set-based statements: the duplicate
// checks, the inserts of facts, their search rows, entities, aliases and
// links each take one round trip for the whole batch instead of several
// per fact, which is what makes a bulk import fast over a network. The
// outcome is the one createFact gives fact by fact, in order: a fact
// duplicating an earlier one of the batch (same external key, or for a
// key-less fact the same content) is that fact; entity names resolve
// through entities and aliases created earlier in the batch. A fact that
// loses an insert race to another transaction falls back to createFact.
func (w *wtx) createFactsBulk(fs []*holomem.Fact) ([]bool, error) {
	return w.createFactsBulkPrepared(fs, nil)
}

// createFactsBulkPrepared is createFactsBulk with what PrepareFacts
// derived from fs before the transaction; p == nil derives it here.
func (w *wtx) createFactsBulkPrepared(fs []*holomem.Fact, p *prepared) ([]bool, error) {
	if p == nil || !p.matches(fs) {
		var err error
		if p, err = prepareFacts(fs, nil, false); err != nil {
			return nil, err
		}
	}
	created := make([]bool, len(fs))
	hashes := p.hashes

	// What the database holds already: facts by external key, and the
	// best fact per content hash (key-less first, then the oldest).
	type kkey struct{ ns, key string }
	type hkey struct {
		ns   string
		hash int64
	}
	type cand struct {
		id      int64
		content string
	}
	var kNS, kKeys, hNS []string
	var hHash []int64
	for i, f := range fs {
		if f.ExternalKey != "" {
			kNS, kKeys = append(kNS, f.Namespace), append(kKeys, f.ExternalKey)
		} else {
			hNS, hHash = append(hNS, f.Namespace), append(hHash, hashes[i])
		}
	}
	dbKey := map[kkey]int64{}
	if len(kNS) > 0 {
		rows, err := w.query(`SELECT f.namespace, f.external_key, f.id FROM facts f
			JOIN unnest($1::text[], $2::text[]) AS u(ns, k) ON f.namespace = u.ns AND f.external_key = u.k`, kNS, kKeys)
		if err != nil {
			return nil, err
		}
		for rows.Next() {
			var k kkey
			var id int64
			if err := rows.Scan(&k.ns, &k.key, &id); err != nil {
				rows.Close()
				return nil, err
			}
			dbKey[k] = id
		}
		rows.Close()
		if err := rows.Err(); err != nil {
			return nil, err
		}
	}
	dbHash := map[hkey]cand{}
	if len(hNS) > 0 {
		rows, err := w.query(`SELECT DISTINCT ON (f.namespace, f.content_hash) f.namespace, f.content_hash, f.id, f.content
			FROM facts f JOIN unnest($1::text[], $2::bigint[]) AS u(ns, h) ON f.namespace = u.ns AND f.content_hash = u.h
			ORDER BY f.namespace, f.content_hash, f.external_key IS NOT NULL, f.id`, hNS, hHash)
		if err != nil {
			return nil, err
		}
		for rows.Next() {
			var k hkey
			var c cand
			if err := rows.Scan(&k.ns, &k.hash, &c.id, &c.content); err != nil {
				rows.Close()
				return nil, err
			}
			dbHash[k] = c
		}
		rows.Close()
		if err := rows.Err(); err != nil {
			return nil, err
		}
	}

	// Decide fact by fact, as createFact would.
	const (
		insert = iota
		dupDB
		dupBatch
	)
	kind := make([]int, len(fs))
	ref := make([]int64, len(fs)) // dupDB: fact id; dupBatch: batch index
	batchKey := map[kkey]int{}
	batchHash := map[hkey]int{}
	var inserts []int
	for i, f := range fs {
		hk := hkey{f.Namespace, hashes[i]}
		if f.ExternalKey != "" {
			k := kkey{f.Namespace, f.ExternalKey}
			if id, ok := dbKey[k]; ok {
				kind[i], ref[i] = dupDB, id
				continue
			}
			if j, ok := batchKey[k]; ok {
				kind[i], ref[i] = dupBatch, int64(j)
				continue
			}
			batchKey[k] = i
		} else {
			if c, ok := dbHash[hk]; ok {
				if c.content != f.Content {
					return nil, fmt.Errorf("fact %d: %w: content hash collides with fact %d", i, holomem.ErrConflict, c.id)
				}
				kind[i], ref[i] = dupDB, c.id
				continue
			}
			if j, ok := batchHash[hk]; ok {
				if fs[j].Content != f.Content {
					return nil, fmt.Errorf("fact %d: %w: content hash collides with fact %d of the batch", i, holomem.ErrConflict, j)
				}
				kind[i], ref[i] = dupBatch, int64(j)
				continue
			}
		}
		if _, ok := batchHash[hk]; !ok {
			batchHash[hk] = i
		}
		inserts = append(inserts, i)
	}

	// Insert the new facts in batch order (ids ascend with it).
	var dupNames map[int][]string // a duplicate's entities at its place in the batch
	if len(inserts) > 0 {
		n := len(inserts)
		var (
			ns, content, category, tags, source     = make([]string, n), make([]string, n), make([]string, n), make([]string, n), make([]string, n)
			extKey, anchorPath, anchorHash, modelID = make([]*string, n), make([]*string, n), make([]*string, n), make([]*string, n)
			hash, retrieval, helpful, unhelpful     = make([]int64, n), make([]int64, n), make([]int64, n), make([]int64, n)
			createdAt, updatedAt                    = make([]int64, n), make([]int64, n)
			trust                                   = make([]float64, n)
			emb, hrr                                = make([][]byte, n), make([][]byte, n)
		)
		for j, i := range inserts {
			f := fs[i]
			if f.CreatedAt.IsZero() {
				f.CreatedAt = w.now
			}
			if f.UpdatedAt.IsZero() {
				f.UpdatedAt = f.CreatedAt
			}
			f.CreatedAt, f.UpdatedAt = fromNanos(nanos(f.CreatedAt)), fromNanos(nanos(f.UpdatedAt))
			ns[j], content[j], category[j], tags[j], source[j] = f.Namespace, f.Content, f.Category, rowcodec.JoinTags(f.Tags), f.Source
			if f.ExternalKey != "" {
				extKey[j] = &f.ExternalKey
			}
			if f.Anchor != nil {
				anchorPath[j], anchorHash[j] = &f.Anchor.Path, &f.Anchor.Hash
			}
			if len(f.Embedding) > 0 {
				modelID[j], emb[j] = &f.ModelID, rowcodec.EncodeVector(f.Embedding)
			} else {
				f.ModelID = ""
			}
			if len(f.HRR) > 0 {
				hrr[j] = f.HRR
			}
			hash[j], retrieval[j], helpful[j], unhelpful[j] = hashes[i], int64(f.RetrievalCount), int64(f.HelpfulCount), int64(f.UnhelpfulCount)
			createdAt[j], updatedAt[j], trust[j] = nanos(f.CreatedAt), nanos(f.UpdatedAt), f.Trust
		}
		rows, err := w.query(`INSERT INTO facts (namespace, content, content_hash, category, tags, source, external_key,
			trust, retrieval_count, helpful_count, unhelpful_count, created_at, updated_at,
			anchor_path, anchor_hash, model_id, embedding, hrr)
			SELECT ns, content, hash, category, tags, source, ext, trust, rc, hc, uc, ca, ua, ap, ah, mid, emb, hrr
			FROM unnest($1::text[], $2::text[], $3::bigint[], $4::text[], $5::text[], $6::text[], $7::text[],
				$8::float8[], $9::bigint[], $10::bigint[], $11::bigint[], $12::bigint[], $13::bigint[],
				$14::text[], $15::text[], $16::text[], $17::bytea[], $18::bytea[])
				WITH ORDINALITY AS u(ns, content, hash, category, tags, source, ext, trust, rc, hc, uc, ca, ua, ap, ah, mid, emb, hrr, ord)
			ORDER BY ord
			ON CONFLICT DO NOTHING
			RETURNING id, namespace, content_hash, external_key`,
			ns, content, hash, category, tags, source, extKey, trust, retrieval, helpful, unhelpful, createdAt, updatedAt,
			anchorPath, anchorHash, modelID, emb, hrr)
		if err != nil {
			return nil, err
		}
		byKey := map[kkey]int64{}
		byHash := map[hkey]int64{}
		for rows.Next() {
			var id, h int64
			var rns string
			var k *string
			if err := rows.Scan(&id, &rns, &h, &k); err != nil {
				rows.Close()
				return nil, err
			}
			if k != nil {
				byKey[kkey{rns, *k}] = id
			} else {
				byHash[hkey{rns, h}] = id
			}
		}
		rows.Close()
		if err := rows.Err(); err != nil {
			return nil, err
		}
		var ids []int64
		var sns, fts []string
		var lost []int
		for _, i := range inserts {
			f := fs[i]
			var id int64
			var ok bool
			if f.ExternalKey != "" {
				id, ok = byKey[kkey{f.Namespace, f.ExternalKey}]
			} else {
				id, ok = byHash[hkey{f.Namespace, hashes[i]}]
			}
			if !ok {
				lost = append(lost, i) // a concurrent transaction stored it first
				continue
			}
			f.ID, f.SupersededBy, created[i] = id, 0, true
			ids, sns, fts = append(ids, id), append(sns, f.Namespace), append(fts, p.ftsText(i, f))
			w.touch(f.Namespace)
		}
		if len(ids) > 0 {
			if _, err := w.exec(`INSERT INTO fact_search (id, namespace, live, fts)
				SELECT id, ns, true, fts::tsvector FROM unnest($1::bigint[], $2::text[], $3::text[]) AS u(id, ns, fts)`, ids, sns, fts); err != nil {
				return nil, err
			}
		}
		dupOf := make([]int64, len(fs))
		for i := range fs {
			switch kind[i] {
			case dupDB:
				dupOf[i] = ref[i]
			case dupBatch:
				dupOf[i] = fs[ref[i]].ID
			}
		}
		if dupNames, err = w.linkEntitiesBulk(fs, created, dupOf, p.ents); err != nil {
			return nil, err
		}
		for _, i := range lost {
			c, err := w.createFact(fs[i])
			if err != nil {
				return nil, fmt.Errorf("fact %d: %w", i, err)
			}
			created[i] = c
		}
	}

	// Duplicates take the fact they duplicate, as loadFact reads it.
	var dbIDs []int64
	for i := range fs {
		if kind[i] == dupDB {
			dbIDs = append(dbIDs, ref[i])
		}
	}
	if len(dbIDs) > 0 {
		slices.Sort(dbIDs)
		dbIDs = slices.Compact(dbIDs)
		rows, err := w.query("SELECT "+factColumns(false, false)+" FROM facts f WHERE f.id = ANY($1::bigint[])", dbIDs)
		if err != nil {
			return nil, err
		}
		loaded := map[int64]*holomem.Fact{}
		var list []*holomem.Fact
		for rows.Next() {
			f, err := sqlstore.ScanFact(rows)
			if err != nil {
				rows.Close()
				return nil, err
			}
			loaded[f.ID] = f
			list = append(list, f)
		}
		rows.Close()
		if err := rows.Err(); err != nil {
			return nil, err
		}
		if err := attachEntities(w.ctx, w.tx, list); err != nil {
			return nil, err
		}
		for i := range fs {
			if kind[i] == dupDB {
				old := loaded[ref[i]]
				if old == nil {
					return nil, fmt.Errorf("fact %d: fact %d vanished: %w", i, ref[i], errConcurrentEntity)
				}
				cp := *old
				cp.Entities = slices.Clone(old.Entities)
				if names, ok := dupNames[i]; ok {
					cp.Entities = names
				}
				*fs[i] = cp
			}
		}
	}
	for i := range fs {
		if kind[i] == dupBatch {
			cp := *fs[ref[i]]
			cp.Embedding, cp.HRR = nil, nil
			cp.Entities = slices.Clone(cp.Entities)
			if names, ok := dupNames[i]; ok {
				cp.Entities = names
			}
			*fs[i] = cp
		}
	}
	return created, nil
}

// linkEntitiesBulk links the entities of the created facts as adding them
// one by one would (sqlstore.LinkEntities, fact after fact in order): a
// term that recurs within the batch becomes an entity at the same fact,
// and a sentence opener links only an entity that exists by then. What
// makes it cheaper than createFact's linking is that the batch's names
// and aliases are resolved with two statements first (w.entities,
// w.absent).
//
// dupOf[i] is the id of the fact that fs[i] duplicates (0 for the
// others): its entity names at fs[i]'s place in the batch are returned,
// as createFact would have read them then.
//
// known[i], when known is not nil, are fs[i]'s entities (text.Extract of
// its content and tags), derived before the transaction.
func (w *wtx) linkEntitiesBulk(fs []*holomem.Fact, created []bool, dupOf []int64, known [][]text.Entity) (map[int][]string, error) {
	type key struct{ ns, key string }
	ents := make([][]text.Entity, len(fs))
	want := map[key]bool{}
	w.unlinked = map[int64]bool{}
	w.links = &linkRows{}
	defer func() { w.unlinked, w.links = nil, nil }()
	for i, f := range fs {
		if !created[i] {
			continue
		}
		w.unlinked[f.ID] = true
		if known != nil {
			ents[i] = known[i]
		} else {
			ents[i] = text.Extract(f.Content, f.Tags)
		}
		for _, e := range ents[i] {
			if k := text.EntityKey(e.Name); k != "" {
				want[key{f.Namespace, k}] = true
			}
			for _, a := range e.Aliases {
				if ak := text.EntityKey(a); ak != "" {
					want[key{f.Namespace, ak}] = true
				}
			}
		}
	}
	var wNS, wKey []string
	for k := range want {
		if _, ok := w.entities[entityCacheKey{k.ns, k.key}]; !ok && !w.absent[entityCacheKey{k.ns, k.key}] {
			wNS, wKey = append(wNS, k.ns), append(wKey, k.key)
		}
	}
	if len(wNS) > 0 {
		// An entity's own key wins over an alias key (qResolveEntity).
		rows, err := w.query(qResolveEntities, wNS, wKey)
		if err != nil {
			return nil, err
		}
		found := map[entityCacheKey]bool{}
		for rows.Next() {
			var ck entityCacheKey
			var id int64
			var name string
			if err := rows.Scan(&ck.namespace, &ck.key, &id, &name); err != nil {
				rows.Close()
				return nil, err
			}
			found[ck] = true
			w.cacheEntity(ck, id, name)
		}
		rows.Close()
		if err := rows.Err(); err != nil {
			return nil, err
		}
		if w.absent == nil {
			w.absent = map[entityCacheKey]bool{}
		}
		for i := range wNS {
			if ck := (entityCacheKey{wNS[i], wKey[i]}); !found[ck] {
				w.absent[ck] = true
			}
		}
	}
	var dupNames map[int][]string
	for i, f := range fs {
		if !created[i] {
			if dupOf[i] == 0 {
				continue
			}
			if err := w.flushLinks(); err != nil {
				return nil, err
			}
			names, err := w.entityNames(dupOf[i])
			if err != nil {
				return nil, err
			}
			if dupNames == nil {
				dupNames = map[int][]string{}
			}
			dupNames[i] = names
			continue
		}
		names, err := sqlstore.LinkEntities(w, f.ID, f.Namespace, ents[i])
		if err != nil {
			return nil, err
		}
		delete(w.unlinked, f.ID)
		f.Entities = names
	}
	return dupNames, w.flushLinks()
}

// entityNames returns the names of the entities fact id links, in order.
func (w *wtx) entityNames(id int64) ([]string, error) {
	rows, err := w.query(qEntityNamesOfFact, id)
	if err != nil {
		return nil, err
	}
	names, err := pgx.CollectRows(rows, pgx.RowTo[string])
	if len(names) == 0 {
		names = nil
	}
	return names, err
}
