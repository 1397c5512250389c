package sqlstore

import (
	"context"
	"errors"
	"fmt"

	"github.com/holomem/holomem"
	"github.com/holomem/holomem/internal/leaf/rowcodec"
	"github.com/holomem/holomem/text"
)

// Hot entity lookups, named so the stores' plan tests can check they use
// an index. Both take the namespace and key twice.
const (
	// QResolveEntity finds an entity by its key, then by an alias key.
	QResolveEntity = `SELECT id, name FROM entities WHERE namespace = ? AND key = ?
		UNION ALL
		SELECT e.id, e.name FROM entity_aliases a JOIN entities e ON e.id = a.entity_id
		WHERE a.namespace = ? AND a.alias_key = ?
		LIMIT 1`
	QLookupEntity = `SELECT id FROM entities WHERE namespace = ? AND key = ?
		UNION ALL
		SELECT entity_id FROM entity_aliases WHERE namespace = ? AND alias_key = ?
		LIMIT 1`
	QFactsOfEntity = "SELECT fact_id FROM fact_entities WHERE entity_id = ? ORDER BY fact_id"
)

// InsertIgnore returns the INSERT statement "INTO ..." rest that skips
// the rows a unique key already holds.
func (d *Dialect) InsertIgnore(rest string) string {
	return d.InsertOrIgnore + " INTO " + rest + d.OnConflictIgnore
}

// ResolveEntity finds the entity whose key or alias key is key; id 0
// when none.
func ResolveEntity(tx Tx, namespace, key string) (int64, string, error) {
	var id int64
	var name string
	err := tx.QueryRow(QResolveEntity, namespace, key, namespace, key).Scan(&id, &name)
	if errors.Is(err, ErrNoRows) {
		return 0, "", nil
	}
	return id, name, err
}

// LookupEntity resolves name (or an alias) in namespace by its key;
// ErrNotFound when it is unknown.
func LookupEntity(tx Tx, namespace, name string) (int64, error) {
	key := text.EntityKey(name)
	if key == "" {
		return 0, fmt.Errorf("entity %q: %w", name, holomem.ErrNotFound)
	}
	var id int64
	err := tx.QueryRow(QLookupEntity, namespace, key, namespace, key).Scan(&id)
	if errors.Is(err, ErrNoRows) {
		return 0, fmt.Errorf("entity %q in namespace %q: %w", name, namespace, holomem.ErrNotFound)
	}
	return id, err
}

// AddAlias records alias (with its key) for entity id unless the
// namespace has that alias key already.
func AddAlias(tx Tx, d *Dialect, id int64, namespace, alias, aliasKey string) error {
	_, err := tx.Exec(d.InsertIgnore("entity_aliases (entity_id, namespace, alias, alias_key) VALUES (?, ?, ?, ?)"), id, namespace, alias, aliasKey)
	return err
}

// PruneEntities deletes those of ids that no fact links any more
// (aliases cascade).
func PruneEntities(tx Tx, d *Dialect, ids []int64) error {
	if len(ids) == 0 {
		return nil
	}
	_, err := tx.Exec(`DELETE FROM entities WHERE `+d.InIDs("id")+`
		AND NOT EXISTS (SELECT 1 FROM fact_entities fe WHERE fe.entity_id = entities.id)`, d.IDs(ids))
	return err
}

const entitySelect = `SELECT e.id, e.namespace, e.name,
	(SELECT count(*) FROM fact_entities fe WHERE fe.entity_id = e.id) AS n
	FROM entities e`

// scanEntities reads the entities of entitySelect + q with their aliases.
func scanEntities(tx Tx, d *Dialect, q string, args ...any) ([]*holomem.Entity, error) {
	rows, err := tx.Query(entitySelect+q, args...)
	if err != nil {
		return nil, err
	}
	out, err := Collect(rows, ScanEntity)
	rows.Close()
	if err != nil || len(out) == 0 {
		return nil, err
	}
	rows, err = tx.Query(d.qAliasesOf, d.IDs(EntityIDs(out)))
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	return out, AddAliases(out, rows)
}

// FactIDsByEntity returns the ids of facts linked to the entity (aliases
// resolved, case-insensitive), ordered by id; none when the entity is unknown.
// An empty namespace means [holomem.DefaultNamespace].
func (b *Base) FactIDsByEntity(ctx context.Context, namespace, name string) ([]int64, error) {
	var ids []int64
	err := b.ReadOne(ctx, func(tx Tx) error {
		eid, err := LookupEntity(tx, DefaultNamespace(namespace), name)
		if errors.Is(err, holomem.ErrNotFound) {
			return nil
		}
		if err != nil {
			return err
		}
		rows, err := tx.Query(QFactsOfEntity, eid)
		if err != nil {
			return err
		}
		defer rows.Close()
		ids, err = Collect(rows, ScanID)
		return err
	})
	if err != nil {
		return nil, fmt.Errorf("facts by entity: %w", err)
	}
	return ids, nil
}

// FindEntity resolves a name or alias by its case-insensitive key (exact
// equality: '%' and '_' are ordinary characters). An empty namespace means
// [holomem.DefaultNamespace]. Returns ErrNotFound.
func (b *Base) FindEntity(ctx context.Context, namespace, name string) (*holomem.Entity, error) {
	var out *holomem.Entity
	err := b.Read(ctx, nil, func(tx Tx) error {
		id, err := LookupEntity(tx, DefaultNamespace(namespace), name)
		if err != nil {
			return err
		}
		es, err := scanEntities(tx, b.Dialect, " WHERE e.id = ?", id)
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
// then name by code point, then id). Limit 0 means all. An empty
// namespace means [holomem.DefaultNamespace].
func (b *Base) FindEntities(ctx context.Context, namespace string, limit int) ([]*holomem.Entity, error) {
	if limit < 0 {
		return nil, fmt.Errorf("find entities: %w: negative limit", holomem.ErrInvalid)
	}
	lim := b.Dialect.NoLimit
	if limit > 0 {
		lim = int64(limit)
	}
	var out []*holomem.Entity
	err := b.Read(ctx, nil, func(tx Tx) error {
		var err error
		out, err = scanEntities(tx, b.Dialect, " WHERE e.namespace = ? ORDER BY n DESC, e.name"+b.Dialect.Collate+", e.id LIMIT ?", DefaultNamespace(namespace), lim)
		return err
	})
	if err != nil {
		return nil, fmt.Errorf("find entities: %w", err)
	}
	return out, nil
}

// EntitiesOf returns the entity names linked to each fact, in order of
// appearance in its content. Facts without entities are absent from the map.
func (b *Base) EntitiesOf(ctx context.Context, ids []int64) (map[int64][]string, error) {
	out := make(map[int64][]string)
	if len(ids) == 0 {
		return out, nil
	}
	err := b.ReadOne(ctx, func(tx Tx) error {
		return EachName(tx, b.Dialect.qEntitiesOfFacts, b.Dialect.IDs(ids), func(id int64, name string) {
			out[id] = append(out[id], name)
		})
	})
	if err != nil {
		return nil, fmt.Errorf("entities of facts: %w", err)
	}
	return out, nil
}

// EntityAliases returns the namespace's aliases: alias key -> the name of
// the entity it stands for. Aliases are few (only "X aka Y" makes them), so
// callers load the map once instead of resolving names one query at a time.
func (b *Base) EntityAliases(ctx context.Context, namespace string) (map[string]string, error) {
	var out map[string]string
	err := b.ReadOne(ctx, func(tx Tx) error {
		rows, err := tx.Query(`SELECT a.alias_key, e.name FROM entity_aliases a
			JOIN entities e ON e.id = a.entity_id WHERE a.namespace = ?`, DefaultNamespace(namespace))
		if err != nil {
			return err
		}
		defer rows.Close()
		out, err = AliasMap(rows)
		return err
	})
	if err != nil {
		return nil, fmt.Errorf("entity aliases: %w", err)
	}
	return out, nil
}

// RelinkFacts derives again the entities of up to limit facts after
// afterID, in id order (Relink), after recomputing every entity key when
// afterID is 0 (RekeyEntities), and returns the facts it relinked.
func RelinkFacts(tx WriteTx, d *Dialect, afterID int64, limit int) ([]int64, error) {
	if afterID == 0 {
		if err := RekeyEntities(tx, d); err != nil {
			return nil, err
		}
	}
	rows, err := tx.Query("SELECT id, namespace, content, tags FROM facts WHERE id > ? ORDER BY id LIMIT ?", afterID, limit)
	if err != nil {
		return nil, err
	}
	facts, err := Collect(rows, ScanFactText)
	rows.Close()
	if err != nil {
		return nil, err
	}
	ids := make([]int64, 0, len(facts))
	for _, f := range facts {
		if _, err := Relink(tx, f.ID, f.Namespace, f.Content, rowcodec.SplitTags(f.Tags)); err != nil {
			return nil, err
		}
		ids = append(ids, f.ID)
	}
	return ids, nil
}

// RekeyEntities sets every entity's and alias's key to text.EntityKey of
// its name, merging entities whose new keys meet (the lowest id keeps its
// name; the others' links and aliases move to it). The caller drops its
// entity caches.
func RekeyEntities(tx Tx, d *Dialect) error {
	rows, err := tx.Query("SELECT id, namespace, name, key FROM entities ORDER BY id")
	if err != nil {
		return err
	}
	es, err := Collect(rows, ScanEntityRow)
	rows.Close()
	if err != nil {
		return err
	}
	for _, st := range PlanRekey(es) {
		if st.Into == 0 {
			if _, err := tx.Exec("UPDATE entities SET key = ? WHERE id = ?", st.Key, st.ID); err != nil {
				return fmt.Errorf("rekey entity %d: %w", st.ID, err)
			}
			continue
		}
		// The links the entity kept (the fact links both) go with it.
		for _, q := range []string{
			d.InsertIgnore("fact_entities (fact_id, entity_id, pos) SELECT fact_id, ?, pos FROM fact_entities WHERE entity_id = ?"),
			"UPDATE entity_aliases SET entity_id = ? WHERE entity_id = ?",
		} {
			if _, err := tx.Exec(q, st.Into, st.ID); err != nil {
				return fmt.Errorf("merge entity %d: %w", st.ID, err)
			}
		}
		if _, err := tx.Exec("DELETE FROM entities WHERE id = ?", st.ID); err != nil {
			return fmt.Errorf("merge entity %d: %w", st.ID, err)
		}
	}
	rows, err = tx.Query("SELECT namespace, alias, alias_key FROM entity_aliases")
	if err != nil {
		return err
	}
	as, err := Collect(rows, ScanAliasRow)
	rows.Close()
	if err != nil {
		return err
	}
	for _, a := range PlanAliasRekey(as) {
		if _, err := tx.Exec("DELETE FROM entity_aliases WHERE namespace = ? AND alias_key = ?", a.Namespace, a.NewKey); err != nil {
			return fmt.Errorf("rekey alias %q: %w", a.Alias, err)
		}
		if _, err := tx.Exec("UPDATE entity_aliases SET alias_key = ? WHERE namespace = ? AND alias_key = ?", a.NewKey, a.Namespace, a.Key); err != nil {
			return fmt.Errorf("rekey alias %q: %w", a.Alias, err)
		}
	}
	return nil
}
