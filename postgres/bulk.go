package postgres

import (
	"fmt"
	"maps"
	"slices"

	"github.com/holomem/holomem"
	"github.com/holomem/holomem/internal/rowcodec"
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
	created := make([]bool, len(fs))
	hashes := make([]int64, len(fs))
	for i, f := range fs {
		if i%256 == 0 {
			if err := w.ctx.Err(); err != nil {
				return nil, err
			}
		}
		if err := rowcodec.PrepareFact(f); err != nil {
			return nil, fmt.Errorf("fact %d: %w", i, err)
		}
		hashes[i] = rowcodec.ContentHash(f.Content)
	}

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
			ids, sns, fts = append(ids, id), append(sns, f.Namespace), append(fts, tsvectorText(f.Content, rowcodec.JoinTags(f.Tags)))
			w.touch(f.Namespace)
		}
		if len(ids) > 0 {
			if _, err := w.exec(`INSERT INTO fact_search (id, namespace, live, fts)
				SELECT id, ns, true, fts::tsvector FROM unnest($1::bigint[], $2::text[], $3::text[]) AS u(id, ns, fts)`, ids, sns, fts); err != nil {
				return nil, err
			}
		}
		if err := w.linkEntitiesBulk(fs, created); err != nil {
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
			f, err := scanFact(rows)
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
				*fs[i] = cp
			}
		}
	}
	for i := range fs {
		if kind[i] == dupBatch {
			cp := *fs[ref[i]]
			cp.Embedding, cp.HRR = nil, nil
			cp.Entities = slices.Clone(cp.Entities)
			*fs[i] = cp
		}
	}
	return created, nil
}

// linkEntitiesBulk derives and links the entities of the created facts
// with a handful of statements, resolving names exactly as linkEntities
// does one fact after another.
func (w *wtx) linkEntitiesBulk(fs []*holomem.Fact, created []bool) (err error) {
	type key struct{ ns, key string }
	type ent struct {
		id   int64 // 0 while pending
		name string
		pend int // index in pending when id is 0
	}
	type pendingEnt struct{ ns, name, key string }
	mentions := make([][]text.Entity, len(fs))
	terms := make([][]text.Entity, len(fs))
	defer func() {
		if err == nil {
			err = w.linkTerms(fs, created, terms)
		}
	}()
	want := map[key]bool{}
	for i, f := range fs {
		if !created[i] {
			continue
		}
		for _, e := range text.Extract(f.Content, f.Tags) {
			if e.Kind == text.EntityTerm {
				terms[i] = append(terms[i], e) // linkTerms, one fact at a time
			} else {
				mentions[i] = append(mentions[i], e)
			}
		}
		for _, e := range mentions[i] {
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
	if len(want) == 0 {
		return nil
	}
	var wNS, wKey []string
	for _, k := range slices.SortedFunc(maps.Keys(want), func(a, b key) int {
		if a.ns != b.ns {
			return compareStrings(a.ns, b.ns)
		}
		return compareStrings(a.key, b.key)
	}) {
		wNS, wKey = append(wNS, k.ns), append(wKey, k.key)
	}
	byKey := map[key]*ent{}
	byAlias := map[key]*ent{}
	load := func(q string, into map[key]*ent) error {
		rows, err := w.query(q, wNS, wKey)
		if err != nil {
			return err
		}
		defer rows.Close()
		for rows.Next() {
			var k key
			e := &ent{}
			if err := rows.Scan(&k.ns, &k.key, &e.id, &e.name); err != nil {
				return err
			}
			into[k] = e
		}
		return rows.Err()
	}
	if err := load(`SELECT e.namespace, e.key, e.id, e.name FROM entities e
		JOIN unnest($1::text[], $2::text[]) AS u(ns, k) ON e.namespace = u.ns AND e.key = u.k`, byKey); err != nil {
		return err
	}
	if err := load(`SELECT a.namespace, a.alias_key, e.id, e.name FROM entity_aliases a
		JOIN unnest($1::text[], $2::text[]) AS u(ns, k) ON a.namespace = u.ns AND a.alias_key = u.k
		JOIN entities e ON e.id = a.entity_id`, byAlias); err != nil {
		return err
	}

	var pending []pendingEnt
	type alias struct {
		e        *ent
		ns, name string
		key      string
	}
	var aliases []alias
	type link struct {
		fact int64
		e    *ent
		pos  int
	}
	var links []link
	for i, f := range fs {
		if !created[i] {
			continue
		}
		var names []string
		linked := map[*ent]bool{}
		for _, m := range mentions[i] {
			k := text.EntityKey(m.Name)
			if k == "" {
				continue
			}
			ck := key{f.Namespace, k}
			e := byKey[ck]
			if e == nil {
				e = byAlias[ck]
			}
			if e == nil {
				e = &ent{name: m.Name, pend: len(pending)}
				pending = append(pending, pendingEnt{f.Namespace, m.Name, k})
				byKey[ck] = e
			}
			for _, a := range m.Aliases {
				ak := text.EntityKey(a)
				if ak == "" || ak == k {
					continue
				}
				if byAlias[key{f.Namespace, ak}] == nil {
					byAlias[key{f.Namespace, ak}] = e
					aliases = append(aliases, alias{e: e, ns: f.Namespace, name: a, key: ak})
				}
			}
			if linked[e] {
				continue
			}
			linked[e] = true
			links = append(links, link{fact: f.ID, e: e, pos: len(names)})
			names = append(names, e.name)
		}
		f.Entities = names
	}

	if len(pending) > 0 {
		pNS, pName, pKey := make([]string, len(pending)), make([]string, len(pending)), make([]string, len(pending))
		for j, p := range pending {
			pNS[j], pName[j], pKey[j] = p.ns, p.name, p.key
		}
		got := map[key]int64{}
		collect := func(q string) error {
			rows, err := w.query(q, pNS, pName, pKey)
			if err != nil {
				return err
			}
			defer rows.Close()
			for rows.Next() {
				var k key
				var id int64
				if err := rows.Scan(&id, &k.ns, &k.key); err != nil {
					return err
				}
				got[k] = id
			}
			return rows.Err()
		}
		if err := collect(`INSERT INTO entities (namespace, name, key)
			SELECT ns, name, k FROM unnest($1::text[], $2::text[], $3::text[]) WITH ORDINALITY AS u(ns, name, k, ord) ORDER BY ord
			ON CONFLICT (namespace, key) DO NOTHING RETURNING id, namespace, key`); err != nil {
			return err
		}
		if len(got) < len(pending) {
			// Created meanwhile by another transaction: use theirs.
			if err := collect(`SELECT e.id, e.namespace, e.key FROM entities e
				JOIN unnest($1::text[], $2::text[], $3::text[]) AS u(ns, name, k) ON e.namespace = u.ns AND e.key = u.k`); err != nil {
				return err
			}
		}
		ids := make([]int64, len(pending))
		for j, p := range pending {
			id, ok := got[key{p.ns, p.key}]
			if !ok {
				return fmt.Errorf("create entity %q: %w", p.name, errConcurrentEntity)
			}
			ids[j] = id
		}
		for _, e := range byKey {
			if e.id == 0 {
				e.id = ids[e.pend]
			}
		}
	}
	if len(aliases) > 0 {
		eid, ans, aname, akey := make([]int64, len(aliases)), make([]string, len(aliases)), make([]string, len(aliases)), make([]string, len(aliases))
		for j, a := range aliases {
			eid[j], ans[j], aname[j], akey[j] = a.e.id, a.ns, a.name, a.key
		}
		if _, err := w.exec(`INSERT INTO entity_aliases (entity_id, namespace, alias, alias_key)
			SELECT * FROM unnest($1::bigint[], $2::text[], $3::text[], $4::text[]) ON CONFLICT DO NOTHING`, eid, ans, aname, akey); err != nil {
			return err
		}
	}
	if len(links) > 0 {
		fid, eid, pos := make([]int64, len(links)), make([]int64, len(links)), make([]int32, len(links))
		for j, l := range links {
			fid[j], eid[j], pos[j] = l.fact, l.e.id, int32(l.pos)
		}
		if _, err := w.exec(`INSERT INTO fact_entities (fact_id, entity_id, pos)
			SELECT * FROM unnest($1::bigint[], $2::bigint[], $3::int[]) ON CONFLICT DO NOTHING`, fid, eid, pos); err != nil {
			return err
		}
	}
	return nil
}

func compareStrings(a, b string) int {
	switch {
	case a < b:
		return -1
	case a > b:
		return 1
	}
	return 0
}

// linkTerms links the lower-case technical names of the created facts
// (terms[i] of fs[i]) as linkEntities does, after the names
// linkEntitiesBulk gave them: a term may need the namespace's document
// frequency and may link earlier facts, so it goes one fact at a time.
func (w *wtx) linkTerms(fs []*holomem.Fact, created []bool, terms [][]text.Entity) error {
	for i, f := range fs {
		if !created[i] || len(terms[i]) == 0 {
			continue
		}
		names, err := w.linkEntityList(f.ID, f.Namespace, terms[i], f.Entities)
		if err != nil {
			return err
		}
		f.Entities = names
	}
	return nil
}
