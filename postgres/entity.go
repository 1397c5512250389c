package postgres

import (
	"context"
	"errors"
	"fmt"
	"strings"

	"github.com/jackc/pgx/v5"

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
	id, name, err := sqlstore.ResolveEntity(w, namespace, key)
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
		if id, name, err = sqlstore.ResolveEntity(w, namespace, key); err != nil {
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
	if err := sqlstore.AddAlias(w, dialect, id, namespace, alias, aliasKey); err != nil {
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
	return sqlstore.PruneEntities(w, dialect, ids)
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
			clear(w.entities)
			clear(w.absent)
		}
		ids, err := sqlstore.RelinkFacts(w, dialect, afterID, limit)
		if err != nil || len(ids) == 0 {
			return err
		}
		last = ids[len(ids)-1]
		return nil
	})
	if err != nil {
		return 0, fmt.Errorf("relink entities: %w", err)
	}
	return last, nil
}
