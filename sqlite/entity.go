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
	"github.com/holomem/holomem/internal/rowcodec"
	"github.com/holomem/holomem/internal/sqlstore"
	"github.com/holomem/holomem/text"
)

// Hot lookups, named so plan_test.go can check they use an index.
const (
	// qResolveEntity finds an entity by its key, then by an alias key.
	qResolveEntity = `SELECT id, name FROM entities WHERE namespace = ? AND key = ?
		UNION ALL
		SELECT e.id, e.name FROM entity_aliases a JOIN entities e ON e.id = a.entity_id
		WHERE a.namespace = ? AND a.alias_key = ?
		LIMIT 1`
	qLookupEntity = `SELECT id FROM entities WHERE namespace = ? AND key = ?
		UNION ALL
		SELECT entity_id FROM entity_aliases WHERE namespace = ? AND alias_key = ?
		LIMIT 1`
	qFactsOfEntity = "SELECT fact_id FROM fact_entities WHERE entity_id = ? ORDER BY fact_id"
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
	id, name, err := w.queryEntity(namespace, key)
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
	if _, err := w.exec("INSERT OR IGNORE INTO entity_aliases (entity_id, namespace, alias, alias_key) VALUES (?, ?, ?, ?)", id, namespace, alias, aliasKey); err != nil {
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

// queryEntity finds the entity whose key or alias key is key; id 0 when none.
func (w *wtx) queryEntity(namespace, key string) (int64, string, error) {
	var id int64
	var name string
	err := w.queryRow(qResolveEntity, namespace, key, namespace, key).Scan(&id, &name)
	if errors.Is(err, sql.ErrNoRows) {
		return 0, "", nil
	}
	return id, name, err
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
	_, err := w.exec(`DELETE FROM entities WHERE id IN (SELECT value FROM json_each(?))
		AND NOT EXISTS (SELECT 1 FROM fact_entities fe WHERE fe.entity_id = entities.id)`, idList(ids))
	return err
}

// lookupEntity resolves name (or an alias) in namespace by its key.
func lookupEntity(ctx context.Context, q querier, namespace, name string) (int64, error) {
	return lookupEntityRow(namespace, name, func(args ...any) *sql.Row {
		return q.QueryRowContext(ctx, qLookupEntity, args...)
	})
}

// lookupEntityStmt is lookupEntity in a read transaction with the
// statement prepared on the read pool (nil: parsed here); hygiene looks
// up a few entities on every add.
func lookupEntityStmt(ctx context.Context, tx *sql.Tx, st *sql.Stmt, namespace, name string) (int64, error) {
	return lookupEntityRow(namespace, name, func(args ...any) *sql.Row {
		return txQueryRow(ctx, tx, st, qLookupEntity, args...)
	})
}

func lookupEntityRow(namespace, name string, query func(args ...any) *sql.Row) (int64, error) {
	key := entityKey(name)
	if key == "" {
		return 0, fmt.Errorf("entity %q: %w", name, holomem.ErrNotFound)
	}
	var id int64
	err := query(namespace, key, namespace, key).Scan(&id)
	if errors.Is(err, sql.ErrNoRows) {
		return 0, fmt.Errorf("entity %q in namespace %q: %w", name, namespace, holomem.ErrNotFound)
	}
	return id, err
}

// FactIDsByEntity returns the ids of facts linked to the entity (aliases
// resolved, case-insensitive), ordered by id; none when the entity is unknown.
// An empty namespace means [holomem.DefaultNamespace].
func (s *Store) FactIDsByEntity(ctx context.Context, namespace, name string) ([]int64, error) {
	namespace = defaultNamespace(namespace)
	var ids []int64
	err := s.read(ctx, func(tx *sql.Tx) error {
		eid, err := lookupEntity(ctx, tx, namespace, name)
		if errors.Is(err, holomem.ErrNotFound) {
			return nil
		}
		if err != nil {
			return err
		}
		rows, err := tx.QueryContext(ctx, qFactsOfEntity, eid)
		if err != nil {
			return err
		}
		defer rows.Close()
		ids, err = sqlstore.Collect(rows, sqlstore.ScanID)
		return err
	})
	if err != nil {
		return nil, fmt.Errorf("facts by entity: %w", err)
	}
	return ids, nil
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
	st, lookup := s.readStmt(ctx, qRecentFactsOfEntity), s.readStmt(ctx, qLookupEntity)
	var ids []int64
	err := s.read(ctx, func(tx *sql.Tx) error {
		eid, err := lookupEntityStmt(ctx, tx, lookup, namespace, name)
		if errors.Is(err, holomem.ErrNotFound) {
			return nil
		}
		if err != nil {
			return err
		}
		rows, err := txQuery(ctx, tx, st, qRecentFactsOfEntity, eid, limit)
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

const entitySelect = `SELECT e.id, e.namespace, e.name,
	(SELECT count(*) FROM fact_entities fe WHERE fe.entity_id = e.id) AS n
	FROM entities e`

func scanEntities(ctx context.Context, q querier, query string, args ...any) ([]*holomem.Entity, error) {
	rows, err := q.QueryContext(ctx, query, args...)
	if err != nil {
		return nil, err
	}
	out, err := sqlstore.Collect(rows, sqlstore.ScanEntity)
	rows.Close()
	if err != nil || len(out) == 0 {
		return nil, err
	}
	rows, err = q.QueryContext(ctx, `SELECT entity_id, alias FROM entity_aliases
		WHERE entity_id IN (SELECT value FROM json_each(?)) ORDER BY entity_id, alias_key`, idList(sqlstore.EntityIDs(out)))
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	return out, sqlstore.AddAliases(out, rows)
}

// FindEntity resolves a name or alias by its case-insensitive key (exact
// equality: '%' and '_' are ordinary characters). An empty namespace means
// [holomem.DefaultNamespace]. Returns ErrNotFound.
func (s *Store) FindEntity(ctx context.Context, namespace, name string) (*holomem.Entity, error) {
	namespace = defaultNamespace(namespace)
	var out *holomem.Entity
	err := s.read(ctx, func(tx *sql.Tx) error {
		id, err := lookupEntity(ctx, tx, namespace, name)
		if err != nil {
			return err
		}
		es, err := scanEntities(ctx, tx, entitySelect+" WHERE e.id = ?", id)
		if err != nil {
			return err
		}
		if len(es) == 0 {
			return fmt.Errorf("entity %q: %w", name, holomem.ErrNotFound)
		}
		out = es[0]
		return nil
	})
	if err != nil {
		return nil, fmt.Errorf("find entity: %w", err)
	}
	return out, nil
}

// FindEntities lists the namespace's entities by fact count (descending,
// then name, then id). Limit 0 means all. An empty namespace means
// [holomem.DefaultNamespace].
func (s *Store) FindEntities(ctx context.Context, namespace string, limit int) ([]*holomem.Entity, error) {
	if limit < 0 {
		return nil, fmt.Errorf("find entities: %w: negative limit", holomem.ErrInvalid)
	}
	namespace = defaultNamespace(namespace)
	lim := int64(limit)
	if lim == 0 {
		lim = -1
	}
	var out []*holomem.Entity
	err := s.read(ctx, func(tx *sql.Tx) error {
		var err error
		out, err = scanEntities(ctx, tx, entitySelect+" WHERE e.namespace = ? ORDER BY n DESC, e.name, e.id LIMIT ?", namespace, lim)
		return err
	})
	if err != nil {
		return nil, fmt.Errorf("find entities: %w", err)
	}
	return out, nil
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
			if err := w.rekeyEntities(); err != nil {
				return err
			}
		}
		rows, err := w.query("SELECT id, namespace, content, tags FROM facts WHERE id > ? ORDER BY id LIMIT ?", afterID, limit)
		if err != nil {
			return err
		}
		facts, err := sqlstore.Collect(rows, sqlstore.ScanFactText)
		rows.Close()
		if err != nil {
			return err
		}
		for _, f := range facts {
			if _, err := sqlstore.Relink(w, f.ID, f.Namespace, f.Content, rowcodec.SplitTags(f.Tags)); err != nil {
				return err
			}
			w.linked = append(w.linked, f.ID)
			last = f.ID
		}
		return nil
	})
	if err != nil {
		return 0, fmt.Errorf("relink entities: %w", err)
	}
	return last, nil
}

// rekeyEntities sets every entity's and alias's key to text.EntityKey of
// its name, merging entities whose new keys meet (the lowest id keeps its
// name; the others' links and aliases move to it).
func (w *wtx) rekeyEntities() error {
	clear(w.entities)
	clear(w.link.absent)
	rows, err := w.query("SELECT id, namespace, name, key FROM entities ORDER BY id")
	if err != nil {
		return err
	}
	es, err := sqlstore.Collect(rows, sqlstore.ScanEntityRow)
	rows.Close()
	if err != nil {
		return err
	}
	for _, st := range sqlstore.PlanRekey(es) {
		if st.Into == 0 {
			if _, err := w.exec("UPDATE entities SET key = ? WHERE id = ?", st.Key, st.ID); err != nil {
				return fmt.Errorf("rekey entity %d: %w", st.ID, err)
			}
			continue
		}
		for _, q := range []string{
			"UPDATE OR IGNORE fact_entities SET entity_id = ? WHERE entity_id = ?",
			"UPDATE OR IGNORE entity_aliases SET entity_id = ? WHERE entity_id = ?",
		} {
			if _, err := w.exec(q, st.Into, st.ID); err != nil {
				return fmt.Errorf("merge entity %d: %w", st.ID, err)
			}
		}
		if _, err := w.exec("DELETE FROM entities WHERE id = ?", st.ID); err != nil {
			return fmt.Errorf("merge entity %d: %w", st.ID, err)
		}
	}
	rows, err = w.query("SELECT namespace, alias, alias_key FROM entity_aliases")
	if err != nil {
		return err
	}
	as, err := sqlstore.Collect(rows, sqlstore.ScanAliasRow)
	rows.Close()
	if err != nil {
		return err
	}
	for _, a := range sqlstore.PlanAliasRekey(as) {
		if _, err := w.exec("UPDATE OR REPLACE entity_aliases SET alias_key = ? WHERE namespace = ? AND alias_key = ?", a.NewKey, a.Namespace, a.Key); err != nil {
			return fmt.Errorf("rekey alias %q: %w", a.Alias, err)
		}
	}
	return nil
}
