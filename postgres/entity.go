package postgres

import (
	"context"
	"errors"
	"fmt"
	"strings"

	"github.com/jackc/pgx/v5"

	"github.com/holomem/holomem"
	"github.com/holomem/holomem/internal/rowcodec"
	"github.com/holomem/holomem/internal/sqlstore"
	"github.com/holomem/holomem/text"
)

// Hot lookups, named so plan_test.go can check they use an index.
const (
	// qResolveEntity finds an entity by its key, then by an alias key.
	qResolveEntity = `(SELECT id, name FROM entities WHERE namespace = $1 AND key = $2)
		UNION ALL
		(SELECT e.id, e.name FROM entity_aliases a JOIN entities e ON e.id = a.entity_id
		WHERE a.namespace = $1 AND a.alias_key = $2)
		LIMIT 1`
	qLookupEntity = `(SELECT id FROM entities WHERE namespace = $1 AND key = $2)
		UNION ALL
		(SELECT entity_id FROM entity_aliases WHERE namespace = $1 AND alias_key = $2)
		LIMIT 1`
	// qResolveEntities is qResolveEntity for a batch's keys, namespaces in
	// $1 and keys in $2 (linkEntitiesBulk).
	qResolveEntities = `SELECT u.ns, u.k, r.id, r.name FROM unnest($1::text[], $2::text[]) AS u(ns, k)
		CROSS JOIN LATERAL ((SELECT id, name FROM entities WHERE namespace = u.ns AND key = u.k)
		UNION ALL
		(SELECT e.id, e.name FROM entity_aliases a JOIN entities e ON e.id = a.entity_id
		WHERE a.namespace = u.ns AND a.alias_key = u.k)
		LIMIT 1) r`
	// qTermFacts finds the facts of a namespace holding a word (TermFacts).
	qTermFacts = "SELECT id FROM fact_search WHERE namespace = $1 AND fts @@ $2::tsquery AND id <> $3 ORDER BY id DESC"
	// qEntityNamesOfFact lists a fact's entity names in order.
	qEntityNamesOfFact = "SELECT e.name FROM fact_entities fe JOIN entities e ON e.id = fe.entity_id WHERE fe.fact_id = $1 ORDER BY fe.pos, e.id"
	qFactsOfEntity     = "SELECT fact_id FROM fact_entities WHERE entity_id = $1 ORDER BY fact_id"
)

// linkEntities derives the entities of content and links them to the
// fact as sqlstore.LinkEntities decides, with wtx as its
// sqlstore.EntityTx.
func (w *wtx) linkEntities(factID int64, namespace, content string, tags []string) ([]string, error) {
	return sqlstore.LinkEntities(w, factID, namespace, text.Extract(content, tags))
}

// ResolveEntity implements sqlstore.EntityTx from w.entities and
// w.absent (filled by linkEntitiesBulk), asking the database what
// neither knows.
func (w *wtx) ResolveEntity(namespace, key string) (int64, string, error) {
	ck := entityCacheKey{namespace, key}
	if ref, ok := w.entities[ck]; ok {
		return ref.id, ref.name, nil
	}
	if w.absent[ck] {
		return 0, "", nil
	}
	id, name, err := w.resolveEntity(namespace, key)
	if err != nil || id == 0 {
		return 0, "", err
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

// CreateEntity implements sqlstore.EntityTx. A concurrent writer may
// create the same entity: the loser of the race resolves the winner's.
func (w *wtx) CreateEntity(namespace, name, key string) (int64, string, error) {
	var id int64
	err := w.queryRow(`INSERT INTO entities (namespace, name, key) VALUES ($1, $2, $3)
		ON CONFLICT (namespace, key) DO NOTHING RETURNING id`, namespace, name, key).Scan(&id)
	switch {
	case err == nil:
	case errors.Is(err, pgx.ErrNoRows):
		if id, name, err = w.resolveEntity(namespace, key); err != nil {
			return 0, "", err
		}
		if id == 0 {
			return 0, "", errConcurrentEntity
		}
	default:
		return 0, "", err
	}
	ck := entityCacheKey{namespace, key}
	delete(w.absent, ck)
	w.cacheEntity(ck, id, name)
	return id, name, nil
}

// AddAlias implements sqlstore.EntityTx.
func (w *wtx) AddAlias(id int64, namespace, alias, aliasKey string) error {
	if _, err := w.exec("INSERT INTO entity_aliases (entity_id, namespace, alias, alias_key) VALUES ($1, $2, $3, $4) ON CONFLICT DO NOTHING", id, namespace, alias, aliasKey); err != nil {
		return err
	}
	delete(w.absent, entityCacheKey{namespace, aliasKey})
	return nil
}

// LinkFact implements sqlstore.EntityTx. A batch (w.links not nil) keeps
// the rows for flushLinks, which writes them in one statement before
// anything reads fact_entities; otherwise they are written now.
func (w *wtx) LinkFact(factID int64, ids []int64) error {
	if w.links == nil {
		var b linkRows
		b.add(factID, ids)
		return w.writeLinks(&b)
	}
	w.links.add(factID, ids)
	return nil
}

// linkRows are fact_entities rows to insert, as columns.
type linkRows struct {
	fact, entity []int64
	pos          []int32
}

func (b *linkRows) add(factID int64, ids []int64) {
	for i, id := range ids {
		b.fact, b.entity, b.pos = append(b.fact, factID), append(b.entity, id), append(b.pos, int32(i))
	}
}

// flushLinks writes the rows LinkFact kept, if any.
func (w *wtx) flushLinks() error {
	if w.links == nil || len(w.links.fact) == 0 {
		return nil
	}
	if err := w.writeLinks(w.links); err != nil {
		return err
	}
	*w.links = linkRows{}
	return nil
}

func (w *wtx) writeLinks(b *linkRows) error {
	_, err := w.exec(`INSERT INTO fact_entities (fact_id, entity_id, pos)
		SELECT * FROM unnest($1::bigint[], $2::bigint[], $3::int[]) ON CONFLICT DO NOTHING`, b.fact, b.entity, b.pos)
	return err
}

// TermFacts implements sqlstore.EntityTx: the facts whose tsvector holds
// the term's token, newest first, but for the facts of a batch not linked
// yet (w.unlinked), which a one-by-one import would not have stored.
func (w *wtx) TermFacts(namespace, key string, except int64) ([]int64, error) {
	tok, ok := sqlstore.TermToken(key)
	if !ok {
		return nil, nil
	}
	var q strings.Builder
	writeLexeme(&q, lexeme(tok))
	rows, err := w.query(qTermFacts, namespace, q.String(), except)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	var ids []int64
	for rows.Next() {
		var id int64
		if err := rows.Scan(&id); err != nil {
			return nil, err
		}
		if !w.unlinked[id] {
			ids = append(ids, id)
		}
	}
	return ids, rows.Err()
}

// PromoteTerm implements sqlstore.EntityTx.
func (w *wtx) PromoteTerm(key string, id int64, ids []int64) error {
	rows, err := w.query("SELECT id, content, tags FROM facts WHERE id = ANY($1::bigint[]) ORDER BY id", ids)
	if err != nil {
		return err
	}
	var link []int64
	for rows.Next() {
		var fid int64
		var content, tags string
		if err := rows.Scan(&fid, &content, &tags); err != nil {
			rows.Close()
			return err
		}
		if sqlstore.Mentions(text.Extract(content, rowcodec.SplitTags(tags)), key) {
			link = append(link, fid)
		}
	}
	rows.Close()
	if err := rows.Err(); err != nil {
		return err
	}
	if len(link) == 0 {
		return nil
	}
	if err := w.flushLinks(); err != nil { // the positions count them
		return err
	}
	_, err = w.exec(`INSERT INTO fact_entities (fact_id, entity_id, pos)
		SELECT f, $2, (SELECT count(*) FROM fact_entities WHERE fact_id = f) FROM unnest($1::bigint[]) AS u(f)
		ON CONFLICT DO NOTHING`, link, id)
	return err
}

// errConcurrentEntity is an entity created and deleted by other
// transactions while this one resolved it; rare, and never surfaced when
// retried. It is wrapped as a serialization failure would be.
var errConcurrentEntity = errors.New("entity changed concurrently")

// resolveEntity finds the entity whose key or alias key is key; id 0 when none.
func (w *wtx) resolveEntity(namespace, key string) (int64, string, error) {
	var id int64
	var name string
	err := w.queryRow(qResolveEntity, namespace, key).Scan(&id, &name)
	if errors.Is(err, pgx.ErrNoRows) {
		return 0, "", nil
	}
	return id, name, err
}

// UnlinkEntities implements sqlstore.RelinkTx.
func (w *wtx) UnlinkEntities(factID int64) ([]int64, error) {
	rows, err := w.query("DELETE FROM fact_entities WHERE fact_id = $1 RETURNING entity_id", factID)
	if err != nil {
		return nil, err
	}
	ids, err := pgx.CollectRows(rows, pgx.RowTo[int64])
	if err != nil {
		return nil, err
	}
	return ids, nil
}

// PruneEntities implements sqlstore.RelinkTx (aliases cascade).
func (w *wtx) PruneEntities(ids []int64) error {
	if len(ids) == 0 {
		return nil
	}
	clear(w.entities)
	_, err := w.exec(`DELETE FROM entities e WHERE e.id = ANY($1::bigint[])
		AND NOT EXISTS (SELECT 1 FROM fact_entities fe WHERE fe.entity_id = e.id)`, ids)
	return err
}

// lookupEntity resolves name (or an alias) in namespace by its key.
func lookupEntity(ctx context.Context, q querier, namespace, name string) (int64, error) {
	key := text.EntityKey(name)
	if key == "" {
		return 0, fmt.Errorf("entity %q: %w", name, holomem.ErrNotFound)
	}
	var id int64
	err := q.QueryRow(ctx, qLookupEntity, namespace, key).Scan(&id)
	if errors.Is(err, pgx.ErrNoRows) {
		return 0, fmt.Errorf("entity %q in namespace %q: %w", name, namespace, holomem.ErrNotFound)
	}
	return id, err
}

// FactIDsByEntity returns the ids of facts linked to the entity (aliases
// resolved, case-insensitive), ordered by id; none when it is unknown.
func (s *Store) FactIDsByEntity(ctx context.Context, namespace, name string) ([]int64, error) {
	namespace = defaultNamespace(namespace)
	var ids []int64
	err := s.readOne(ctx, func(tx querier) error {
		eid, err := lookupEntity(ctx, tx, namespace, name)
		if errors.Is(err, holomem.ErrNotFound) {
			return nil
		}
		if err != nil {
			return err
		}
		rows, err := tx.Query(ctx, qFactsOfEntity, eid)
		if err != nil {
			return err
		}
		ids, err = pgx.CollectRows(rows, pgx.RowTo[int64])
		return err
	})
	if err != nil {
		return nil, fmt.Errorf("facts by entity: %w", err)
	}
	if len(ids) == 0 {
		return nil, nil
	}
	return ids, nil
}

const entitySelect = `SELECT e.id, e.namespace, e.name,
	(SELECT count(*) FROM fact_entities fe WHERE fe.entity_id = e.id) AS n
	FROM entities e`

func scanEntities(ctx context.Context, q querier, query string, qargs ...any) ([]*holomem.Entity, error) {
	rows, err := q.Query(ctx, query, qargs...)
	if err != nil {
		return nil, err
	}
	out, err := sqlstore.Collect(rows, sqlstore.ScanEntity)
	rows.Close()
	if err != nil || len(out) == 0 {
		return nil, err
	}
	rows, err = q.Query(ctx, `SELECT entity_id, alias FROM entity_aliases
		WHERE entity_id = ANY($1::bigint[]) ORDER BY entity_id, alias_key`, sqlstore.EntityIDs(out))
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	return out, sqlstore.AddAliases(out, rows)
}

// FindEntity resolves a name or alias by its case-insensitive key (exact
// equality: '%' and '_' are ordinary characters). Returns ErrNotFound.
func (s *Store) FindEntity(ctx context.Context, namespace, name string) (*holomem.Entity, error) {
	namespace = defaultNamespace(namespace)
	var out *holomem.Entity
	err := s.read(ctx, func(tx pgx.Tx) error {
		id, err := lookupEntity(ctx, tx, namespace, name)
		if err != nil {
			return err
		}
		es, err := scanEntities(ctx, tx, entitySelect+" WHERE e.id = $1", id)
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
// then name, then id). Limit 0 means all.
func (s *Store) FindEntities(ctx context.Context, namespace string, limit int) ([]*holomem.Entity, error) {
	if limit < 0 {
		return nil, fmt.Errorf("find entities: %w: negative limit", holomem.ErrInvalid)
	}
	namespace = defaultNamespace(namespace)
	var lim any
	if limit > 0 {
		lim = int64(limit)
	}
	var out []*holomem.Entity
	err := s.read(ctx, func(tx pgx.Tx) error {
		var err error
		// COLLATE "C": names sort by code point, as on SQLite, whatever
		// the database's collation.
		out, err = scanEntities(ctx, tx, entitySelect+` WHERE e.namespace = $1 ORDER BY n DESC, e.name COLLATE "C", e.id LIMIT $2`, namespace, lim)
		return err
	})
	if err != nil {
		return nil, fmt.Errorf("find entities: %w", err)
	}
	return out, nil
}

// EntitiesOf returns the entity names linked to each fact, in order of
// appearance in its content. Facts without entities are absent from the map.
func (s *Store) EntitiesOf(ctx context.Context, ids []int64) (map[int64][]string, error) {
	out := make(map[int64][]string)
	if len(ids) == 0 {
		return out, nil
	}
	err := s.readOne(ctx, func(tx querier) error {
		rows, err := tx.Query(ctx, sqlstore.Rebind(dialect.QEntitiesOfFacts()), ids)
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
			out[id] = append(out[id], name)
		}
		return rows.Err()
	})
	if err != nil {
		return nil, fmt.Errorf("entities of facts: %w", err)
	}
	return out, nil
}

// EntityAliases returns the namespace's aliases: alias key -> the name of
// the entity it stands for.
func (s *Store) EntityAliases(ctx context.Context, namespace string) (map[string]string, error) {
	namespace = defaultNamespace(namespace)
	var out map[string]string
	err := s.readOne(ctx, func(tx querier) error {
		rows, err := tx.Query(ctx, `SELECT a.alias_key, e.name FROM entity_aliases a
			JOIN entities e ON e.id = a.entity_id WHERE a.namespace = $1`, namespace)
		if err != nil {
			return err
		}
		defer rows.Close()
		out, err = sqlstore.AliasMap(rows)
		return err
	})
	if err != nil {
		return nil, fmt.Errorf("entity aliases: %w", err)
	}
	return out, nil
}

// RelinkEntities implements [holomem.EntityRelinker]: one transaction per
// call. Entity keys are recomputed first (when afterID is 0), so names
// whose key changed (Russian cases) merge into one entity.
func (s *Store) RelinkEntities(ctx context.Context, afterID int64, limit int) (int64, error) {
	if limit <= 0 {
		return 0, fmt.Errorf("relink entities: %w: limit %d", holomem.ErrInvalid, limit)
	}
	var last int64
	err := s.update(ctx, func(w *wtx) error {
		last = 0
		if afterID == 0 {
			if err := w.rekeyEntities(); err != nil {
				return err
			}
		}
		rows, err := w.query("SELECT id, namespace, content, tags FROM facts WHERE id > $1 ORDER BY id LIMIT $2", afterID, limit)
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
	clear(w.absent)
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
			if _, err := w.exec("UPDATE entities SET key = $1 WHERE id = $2", st.Key, st.ID); err != nil {
				return fmt.Errorf("rekey entity %d: %w", st.ID, err)
			}
			continue
		}
		for _, q := range []string{
			`INSERT INTO fact_entities (fact_id, entity_id, pos) SELECT fact_id, $1, pos FROM fact_entities WHERE entity_id = $2 ON CONFLICT DO NOTHING`,
			`UPDATE entity_aliases SET entity_id = $1 WHERE entity_id = $2`,
		} {
			if _, err := w.exec(q, st.Into, st.ID); err != nil {
				return fmt.Errorf("merge entity %d: %w", st.ID, err)
			}
		}
		if _, err := w.exec("DELETE FROM entities WHERE id = $1", st.ID); err != nil {
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
		if _, err := w.exec("DELETE FROM entity_aliases WHERE namespace = $1 AND alias_key = $2", a.Namespace, a.NewKey); err != nil {
			return fmt.Errorf("rekey alias %q: %w", a.Alias, err)
		}
		if _, err := w.exec("UPDATE entity_aliases SET alias_key = $1 WHERE namespace = $2 AND alias_key = $3", a.NewKey, a.Namespace, a.Key); err != nil {
			return fmt.Errorf("rekey alias %q: %w", a.Alias, err)
		}
	}
	return nil
}
