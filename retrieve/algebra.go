package retrieve

import (
	"cmp"
	"context"
	"fmt"
	"maps"
	"slices"
	"strings"

	"github.com/holomem/holomem"
	"github.com/holomem/holomem/hrr"
	"github.com/holomem/holomem/text"
)

// Probe returns the facts that hold entity, ranked by holographic similarity
// between each fact's vector and bind(entity, ROLE_ENTITY). Only scores above
// the noise floor count, so an unknown entity returns no facts, not noise.
func (m *Memory) Probe(ctx context.Context, namespace, entity string, limit int) ([]holomem.Hit, error) {
	if err := holomem.ValidateEntities([]string{entity}, limit); err != nil {
		return nil, err
	}
	keys, err := m.algebraKeys(ctx, namespace, []string{entity})
	if err != nil {
		return nil, err
	}
	members, err := m.linkedToAll(ctx, namespace, []string{entity})
	if err != nil {
		return nil, err
	}
	hits, err := m.scanAlgebra(ctx, namespace, keys, members, limit)
	if err == nil {
		attachSnippets(hits, text.QueryStems(entity))
	}
	return hits, err
}

// Reason returns the facts that involve all the entities first: each fact's
// score is the minimum over the entities of its probe score.
func (m *Memory) Reason(ctx context.Context, namespace string, entities []string, limit int) ([]holomem.Hit, error) {
	if len(entities) < 1 {
		return nil, fmt.Errorf("%w: reason needs at least one entity", holomem.ErrInvalid)
	}
	if err := holomem.ValidateEntities(entities, limit); err != nil {
		return nil, err
	}
	keys, err := m.algebraKeys(ctx, namespace, entities)
	if err != nil {
		return nil, err
	}
	members, err := m.linkedToAll(ctx, namespace, entities)
	if err != nil {
		return nil, err
	}
	hits, err := m.scanAlgebra(ctx, namespace, keys, members, limit)
	if err == nil {
		attachSnippets(hits, text.QueryStems(strings.Join(entities, " ")))
	}
	return hits, err
}

// linkedToAll returns the facts the store links to every one of entities.
// A vector holds the entities its fact had when written, so a lower-case
// term the store made an entity later ("nginx" once it recurred) is found
// through the links.
func (m *Memory) linkedToAll(ctx context.Context, namespace string, entities []string) (map[int64]bool, error) {
	if namespace == "" {
		namespace = holomem.DefaultNamespace
	}
	var out map[int64]bool
	for _, e := range entities {
		ids, err := m.store.FactIDsByEntity(ctx, namespace, strings.TrimSpace(e))
		if err != nil {
			return nil, err
		}
		next := make(map[int64]bool, len(ids))
		for _, id := range ids {
			if out == nil || out[id] {
				next[id] = true
			}
		}
		if out = next; len(out) == 0 {
			return nil, nil
		}
	}
	return out, nil
}

// Related returns the entities structurally connected to entity: for each
// fact that holds it, the fact's vector is unbound from ROLE_ENTITY and
// cleaned up against the entities of those facts.
func (m *Memory) Related(ctx context.Context, namespace, entity string, limit int) ([]holomem.EntityHit, error) {
	if err := holomem.ValidateEntities([]string{entity}, limit); err != nil {
		return nil, err
	}
	if namespace == "" {
		namespace = holomem.DefaultNamespace
	}
	if m.opts.DisableHRR {
		return nil, fmt.Errorf("%w: the hrr channel is disabled", holomem.ErrInvalid)
	}
	key := m.resolveEntity(ctx, namespace, strings.TrimSpace(entity))
	if key == "" {
		return nil, fmt.Errorf("%w: entity is empty", holomem.ErrInvalid)
	}
	pk := hrr.ProbeKey(key)
	floor := hrr.NoiseFloor(hrr.DefaultSigmas)
	var items []hrr.Item
	err := m.hrr.scan(ctx, namespace, func(id int64, v []byte) error {
		if hrr.Check(v) == nil && pk.Score(v) >= floor {
			items = append(items, hrr.Item{ID: id, HRR: slices.Clone(v)})
		}
		return ctx.Err()
	})
	if err != nil {
		return nil, fmt.Errorf("related: %w", err)
	}
	members, err := m.linkedToAll(ctx, namespace, []string{entity})
	if err != nil {
		return nil, fmt.Errorf("related: %w", err)
	}
	ids := make([]int64, len(items))
	inHRR := make(map[int64]bool, len(items))
	for i, it := range items {
		ids[i] = it.ID
		inHRR[it.ID] = true
	}
	// Facts linked to the entity whose vectors do not hold it (a term the
	// store made an entity after they were written): their co-entities
	// come from the links.
	var linkOnly []int64
	for _, id := range slices.Sorted(maps.Keys(members)) {
		if !inHRR[id] {
			linkOnly = append(linkOnly, id)
		}
	}
	names, err := m.store.EntitiesOf(ctx, append(slices.Clone(ids), linkOnly...))
	if err != nil {
		return nil, fmt.Errorf("related: %w", err)
	}
	var book []string
	display := map[string]string{}
	for _, id := range ids {
		for _, n := range names[id] {
			k := text.EntityKey(n)
			if _, ok := display[k]; !ok {
				display[k] = n
				book = append(book, k)
			}
		}
	}
	conns := hrr.Related(key, items, book, floor, 0)
	if len(linkOnly) > 0 {
		at := make(map[string]int, len(conns))
		for i, c := range conns {
			at[c.Entity] = i
		}
		for _, id := range linkOnly {
			for _, n := range names[id] {
				k := text.EntityKey(n)
				if k == key {
					continue
				}
				if _, ok := display[k]; !ok {
					display[k] = n
				}
				i, ok := at[k]
				if !ok {
					i = len(conns)
					at[k] = i
					conns = append(conns, hrr.Connection{Entity: k})
				}
				conns[i].Facts++
				conns[i].Score += floor // what the weakest detection adds
			}
		}
		slices.SortFunc(conns, func(a, b hrr.Connection) int {
			if c := cmp.Compare(b.Score, a.Score); c != 0 {
				return c
			}
			return strings.Compare(a.Entity, b.Entity)
		})
	}
	if len(conns) > limit && limit > 0 {
		conns = conns[:limit]
	}
	out := make([]holomem.EntityHit, 0, len(conns))
	for _, c := range conns {
		name := display[c.Entity]
		if name == "" {
			name = c.Entity
		}
		out = append(out, holomem.EntityHit{Entity: name, Score: c.Score, Facts: c.Facts})
	}
	return out, nil
}

// algebraKeys resolves entity names (aliases included) to probe keys.
func (m *Memory) algebraKeys(ctx context.Context, namespace string, entities []string) ([]*hrr.Key, error) {
	if m.opts.DisableHRR {
		return nil, fmt.Errorf("%w: the hrr channel is disabled", holomem.ErrInvalid)
	}
	if namespace == "" {
		namespace = holomem.DefaultNamespace
	}
	var keys []*hrr.Key
	for _, e := range entities {
		e = strings.TrimSpace(e)
		if e == "" {
			return nil, fmt.Errorf("%w: entity is empty", holomem.ErrInvalid)
		}
		keys = append(keys, hrr.ProbeKey(m.resolveEntity(ctx, namespace, e)))
	}
	return keys, nil
}

// scanAlgebra streams the namespace's HRR vectors once, scores each against
// every key (the minimum counts), keeps those above the noise floor and
// the members (facts the store links to the entities, scored at least at
// the floor) and returns the best limit as hits.
func (m *Memory) scanAlgebra(ctx context.Context, namespace string, keys []*hrr.Key, members map[int64]bool, limit int) ([]holomem.Hit, error) {
	if namespace == "" {
		namespace = holomem.DefaultNamespace
	}
	if limit <= 0 {
		limit = holomem.DefaultLimit
	}
	floor := hrr.NoiseFloor(hrr.DefaultSigmas)
	var scored []hrr.Scored
	err := m.hrr.scan(ctx, namespace, func(id int64, v []byte) error {
		if hrr.Check(v) != nil {
			return nil
		}
		s := 2.0
		for _, k := range keys {
			s = min(s, k.Score(v))
			if s < floor && !members[id] {
				return nil
			}
		}
		if members[id] {
			s = max(s, floor)
		}
		scored = append(scored, hrr.Scored{ID: id, Score: s})
		return ctx.Err()
	})
	if err != nil {
		return nil, fmt.Errorf("scan hrr: %w", err)
	}
	slices.SortFunc(scored, func(a, b hrr.Scored) int {
		if c := cmp.Compare(b.Score, a.Score); c != 0 {
			return c
		}
		return cmp.Compare(a.ID, b.ID)
	})
	if len(scored) > limit {
		scored = scored[:limit]
	}
	return m.hitsFor(ctx, scored)
}

// hitsFor loads the facts of scored ids (one query) as hits in that order.
func (m *Memory) hitsFor(ctx context.Context, scored []hrr.Scored) ([]holomem.Hit, error) {
	out := []holomem.Hit{}
	if len(scored) == 0 {
		return out, nil
	}
	ids := make([]int64, len(scored))
	for i, s := range scored {
		ids[i] = s.ID
	}
	facts, _, err := m.store.FindFacts(ctx, holomem.FactFilter{IDs: ids})
	if err != nil {
		return nil, fmt.Errorf("load facts: %w", err)
	}
	byID := make(map[int64]*holomem.Fact, len(facts))
	for _, f := range facts {
		byID[f.ID] = f
	}
	for _, s := range scored {
		f := byID[s.ID]
		if f == nil {
			continue
		}
		out = append(out, holomem.Hit{
			Fact: f, Score: s.Score, Relevance: s.Score, Decay: 1,
			Scores: holomem.Scores{HRR: s.Score},
		})
	}
	return out, nil
}
