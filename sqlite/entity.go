package sqlite

import (
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strings"
	"sync"

	"github.com/holomem/holomem"
	"github.com/holomem/holomem/internal/leaf/rowcodec"
	"github.com/holomem/holomem/internal/store/sqlstore"
	"github.com/holomem/holomem/text"
)

// Hot lookups, named so plan_test.go can check they use an index.
const (
	qResolveEntity = sqlstore.QResolveEntity
	qLookupEntity  = sqlstore.QLookupEntity
	qFactsOfEntity = sqlstore.QFactsOfEntity
)

// linkEntities links the fact to its entities ents (extractEntities of
// its content and tags) as sqlstore.LinkEntities decides, with wtx as its
// sqlstore.EntityTx: answers come from the transaction's caches (see
// linkCache) where it can, and the links of one fact are one statement.
func (w *wtx) linkEntities(factID int64, namespace string, ents []text.Entity) ([]string, error) {
	delete(w.link.keys, factID) // its content may have changed
	return sqlstore.LinkEntities(w, factID, namespace, ents)
}

// ResolveEntity implements sqlstore.EntityTx from w.entities and
// w.link.absent, asking the database what neither knows.
func (w *wtx) ResolveEntity(namespace, key string) (int64, string, error) {
	ck := entityCacheKey{namespace, key}
	if ref, ok := w.entities[ck]; ok {
		return ref.id, ref.name, nil
	}
	if w.link.absent[ck] {
		return 0, "", nil
	}
	id, name, err := sqlstore.ResolveEntity(w, namespace, key)
	if err != nil {
		return 0, "", err
	}
	if id == 0 {
		w.link.noteAbsent(ck)
		return 0, "", nil
	}
	w.cacheEntity(ck, id, name)
	return id, name, nil
}

func (w *wtx) cacheEntity(ck entityCacheKey, id int64, name string) {
	if w.entities == nil {
		w.entities = make(map[entityCacheKey]entityRef)
	}
	w.entities[ck] = entityRef{id, name}
}

// CreateEntity implements sqlstore.EntityTx. No other writer can create
// it meanwhile: the transaction holds the write lock.
func (w *wtx) CreateEntity(namespace, name, key string) (int64, string, error) {
	res, err := w.exec("INSERT INTO entities (namespace, name, key) VALUES (?, ?, ?)", namespace, name, key)
	if err != nil {
		return 0, "", err
	}
	id, err := res.LastInsertId()
	if err != nil {
		return 0, "", err
	}
	ck := entityCacheKey{namespace, key}
	delete(w.link.absent, ck)
	w.cacheEntity(ck, id, name)
	return id, name, nil
}

// AddAlias implements sqlstore.EntityTx.
func (w *wtx) AddAlias(id int64, namespace, alias, aliasKey string) error {
	if err := sqlstore.AddAlias(w, dialect, id, namespace, alias, aliasKey); err != nil {
		return err
	}
	delete(w.link.absent, entityCacheKey{namespace, aliasKey})
	return nil
}

// LinkFact implements sqlstore.EntityTx in one statement.
func (w *wtx) LinkFact(factID int64, ids []int64) error {
	links := make([]any, 0, 3*len(ids))
	for pos, id := range ids {
		links = append(links, factID, id, pos)
	}
	_, err := w.exec(qLinkEntities(len(ids)), links...)
	return err
}

// linkStatements caches qLinkEntities' statements by row count.
var linkStatements sync.Map

// qLinkEntities inserts n fact_entities rows in one statement: a fact's
// links one statement each were a fifth of a bulk import's writer time.
// A fact links at most text.MaxEntities entities, so there are at most that
// many statements to prepare.
func qLinkEntities(n int) string {
	if q, ok := linkStatements.Load(n); ok {
		return q.(string)
	}
	q := "INSERT OR IGNORE INTO fact_entities (fact_id, entity_id, pos) VALUES (?, ?, ?)" + strings.Repeat(", (?, ?, ?)", n-1)
	linkStatements.Store(n, q)
	return q
}

// TermFacts implements sqlstore.EntityTx: the facts this transaction
// stored before except (w.link's own index of their words) and the
// committed ones, from the full-text index through the read pool. The
// write transaction never queries FTS5 itself: a query there flushes the
// index's pending inserts, which made bulk imports 2-3x slower. The
// committed answer is kept for the rest of the transaction (see
// linkCache).
func (w *wtx) TermFacts(namespace, key string, except int64) ([]int64, error) {
	tok, ok := sqlstore.TermToken(key)
	if !ok {
		return nil, nil
	}
	ck := entityCacheKey{namespace, key}
	var ids []int64
	for _, id := range w.link.ownFacts(namespace, tok) {
		if id != except {
			ids = append(ids, id)
		}
	}
	committed, ok := w.link.committed[ck]
	if !ok {
		found, err := w.termMatches(namespace, []string{tok})
		if err != nil {
			return nil, err
		}
		committed = found[0]
		if w.link.committed == nil {
			w.link.committed = make(map[entityCacheKey][]int64)
		}
		w.link.committed[ck] = committed
	}
	for _, id := range committed {
		if id != except && !slices.Contains(ids, id) {
			ids = append(ids, id)
		}
	}
	return ids, nil
}

// PromoteTerm implements sqlstore.EntityTx.
func (w *wtx) PromoteTerm(key string, id int64, ids []int64) error {
	for _, fid := range ids {
		keys, ok := w.link.keys[fid]
		if !ok {
			var content, tags string
			if err := w.queryRow("SELECT content, tags FROM facts WHERE id = ?", fid).Scan(&content, &tags); err != nil {
				return err
			}
			ents := extractEntities(content, rowcodec.SplitTags(tags))
			w.link.noteKeys(fid, ents)
			keys = w.link.keys[fid]
		}
		if !slices.Contains(keys, key) {
			continue
		}
		res, err := w.exec(`INSERT OR IGNORE INTO fact_entities (fact_id, entity_id, pos)
			VALUES (?, ?, (SELECT count(*) FROM fact_entities WHERE fact_id = ?))`, fid, id, fid)
		if err != nil {
			return err
		}
		if n, _ := res.RowsAffected(); n > 0 {
			w.linked = append(w.linked, fid)
		}
	}
	return nil
}

// UnlinkEntities implements sqlstore.RelinkTx.
func (w *wtx) UnlinkEntities(factID int64) ([]int64, error) {
	delete(w.link.keys, factID) // its content may change
	rows, err := w.query("SELECT entity_id FROM fact_entities WHERE fact_id = ?", factID)
	if err != nil {
		return nil, err
	}
	ids, err := sqlstore.Collect(rows, sqlstore.ScanID)
	rows.Close()
	if err != nil {
		return nil, err
	}
	if len(ids) > 0 {
		if _, err := w.exec("DELETE FROM fact_entities WHERE fact_id = ?", factID); err != nil {
			return nil, err
		}
	}
	return ids, nil
}

// PruneEntities implements sqlstore.RelinkTx (aliases cascade).
func (w *wtx) PruneEntities(ids []int64) error {
	if len(ids) == 0 {
		return nil
	}
	clear(w.entities)
	return sqlstore.PruneEntities(w, dialect, ids)
}

// qRecentFactsOfEntity reads the entity index backwards (it holds
// (entity_id, fact_id)), so it stops after limit rows however many facts
// mention the entity.
const qRecentFactsOfEntity = "SELECT fact_id FROM fact_entities WHERE entity_id = ? ORDER BY fact_id DESC LIMIT ?"

// RecentFactIDsByEntity returns the ids of the newest limit facts linked
// to the entity (aliases resolved), ordered by id. Write-time hygiene uses
// it: a popular entity may be linked to thousands of facts.
func (s *Store) RecentFactIDsByEntity(ctx context.Context, namespace, name string, limit int) ([]int64, error) {
	namespace = defaultNamespace(namespace)
	if limit <= 0 {
		return nil, nil
	}
	var ids []int64
	err := s.Read(ctx, []string{qRecentFactsOfEntity, qLookupEntity}, func(tx sqlstore.Tx) error {
		eid, err := sqlstore.LookupEntity(tx, namespace, name)
		if errors.Is(err, holomem.ErrNotFound) {
			return nil
		}
		if err != nil {
			return err
		}
		rows, err := tx.Query(qRecentFactsOfEntity, eid, limit)
		if err != nil {
			return err
		}
		defer rows.Close()
		ids, err = sqlstore.Collect(rows, sqlstore.ScanID)
		return err
	})
	if err != nil {
		return nil, fmt.Errorf("recent facts by entity: %w", err)
	}
	slices.Reverse(ids)
	return ids, nil
}

// qEntitiesOf lists the entity names of a JSON list of facts, one row per
// fact with its names as a JSON array in order of appearance. Recall runs
// it for every answer: it stays prepared (parsing was a quarter of its
// cost), and one row per fact instead of one per name saves a trip through
// database/sql per name (facts can have dozens).
const qEntitiesOf = `SELECT fe.fact_id, json_group_array(e.name ORDER BY fe.pos, e.id)
	FROM fact_entities fe
	JOIN entities e ON e.id = fe.entity_id
	WHERE fe.fact_id IN (SELECT value FROM json_each(?))
	GROUP BY fe.fact_id`

// EntitiesOf returns the entity names linked to each fact, in order of
// appearance in its content. Facts without entities are absent from the map.
func (s *Store) EntitiesOf(ctx context.Context, ids []int64) (map[int64][]string, error) {
	out := make(map[int64][]string)
	if len(ids) == 0 {
		return out, nil
	}
	st := s.readStmt(ctx, qEntitiesOf)
	mark := s.readStmt(ctx, qFTSMark)
	err := s.read(ctx, func(tx *sql.Tx) error {
		key, _, err := ftsMark(ctx, tx, mark)
		if err != nil {
			return err
		}
		missing, epoch := s.ents.lookup(key, ids, out)
		if len(missing) == 0 {
			return nil
		}
		got := make(map[int64][]string, len(missing))
		rows, err := txQuery(ctx, tx, st, qEntitiesOf, idList(missing))
		if err != nil {
			return err
		}
		defer rows.Close()
		for rows.Next() {
			var id int64
			var names []byte
			if err := rows.Scan(&id, &names); err != nil {
				return err
			}
			var list []string
			if err := json.Unmarshal(names, &list); err != nil {
				return fmt.Errorf("fact %d: entity names: %w", id, err)
			}
			got[id] = list
		}
		if err := rows.Err(); err != nil {
			return err
		}
		s.ents.store(key, epoch, missing, got)
		for id, list := range got {
			out[id] = list
		}
		return nil
	})
	if err != nil {
		return nil, fmt.Errorf("entities of facts: %w", err)
	}
	return out, nil
}

// RelinkEntities implements [holomem.EntityRelinker]: one transaction per
// call. Entity keys are recomputed first, so names whose key changed
// (Russian cases) merge into one entity instead of being pruned and made
// anew.
func (s *Store) RelinkEntities(ctx context.Context, afterID int64, limit int) (int64, error) {
	if limit <= 0 {
		return 0, fmt.Errorf("relink entities: %w: limit %d", holomem.ErrInvalid, limit)
	}
	last := int64(0)
	// Relinking changes facts' links without writing the full-text index,
	// whose mark the entities cache otherwise relies on.
	defer s.ents.invalidate()
	err := s.update(ctx, func(w *wtx) error {
		if afterID == 0 {
			clear(w.entities)
			clear(w.link.absent)
		}
		ids, err := sqlstore.RelinkFacts(w, dialect, afterID, limit)
		if err != nil {
			return err
		}
		w.linked = append(w.linked, ids...)
		if len(ids) > 0 {
			last = ids[len(ids)-1]
		}
		return nil
	})
	if err != nil {
		return 0, fmt.Errorf("relink entities: %w", err)
	}
	return last, nil
}
