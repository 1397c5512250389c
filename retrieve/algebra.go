package retrieve

import (
	"cmp"
	"context"
	"errors"
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
//
// The candidates come from postings (see entityCandidates), not from a scan
// of every vector: the cost follows the entity's facts, not the store's.
func (m *Memory) Probe(ctx context.Context, namespace, entity string, limit int) ([]holomem.Hit, error) {
	return m.Reason(ctx, namespace, []string{entity}, limit)
}

// Reason returns the facts that involve all the entities first: each fact's
// score is the minimum over the entities of its probe score.
func (m *Memory) Reason(ctx context.Context, namespace string, entities []string, limit int) ([]holomem.Hit, error) {
	if err := allow(ctx, namespace, false); err != nil {
		return nil, err
	}
	hits, err := m.reason(ctx, namespace, entities, limit, false)
	if err == nil {
		attachSnippets(hits, text.QueryStems(strings.Join(entities, " ")))
	}
	return hits, err
}

// reason is Reason, over a scan of every vector when scan is set (the
// equality test compares both).
func (m *Memory) reason(ctx context.Context, namespace string, entities []string, limit int, scan bool) ([]holomem.Hit, error) {
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
	if namespace == "" {
		namespace = holomem.DefaultNamespace
	}
	if _, ok := holomem.As[holomem.WordFinder](m.store); scan || !ok {
		members, err := m.linkedToAll(ctx, namespace, entities)
		if err != nil {
			return nil, err
		}
		return m.scanAlgebra(ctx, namespace, keys, members, limit)
	}
	var members map[int64]bool
	var cands []int64
	for i, e := range entities {
		c, err := m.entityCandidates(ctx, namespace, e)
		if err != nil {
			return nil, err
		}
		if i == 0 {
			members, cands = c.members, c.ids
		} else {
			members, cands = intersectMembers(members, c.members), intersectSorted(cands, c.ids)
		}
		if len(cands) == 0 {
			return []holomem.Hit{}, nil
		}
	}
	return m.scoreAlgebra(ctx, namespace, keys, members, cands, limit)
}

// candidates are the facts an entity's probe may find: ids (sorted) holds
// every fact whose vector can hold the entity; members are the facts the
// store links to the entity as named, scored at least at the noise floor.
type candidates struct {
	ids     []int64
	members map[int64]bool
}

// entityCandidates returns the facts a probe for name may find, from the
// store's postings instead of a scan of every vector. A fact's vector holds
// the canonical key its entity names resolved to when it was written, so
// the facts that can score are those linked to
//
//   - the entity as named (the members, as before),
//   - the canonical entity and every entity that is an alias of it ("Bob"
//     linked to an entity of its own before "Robert aka Bob" was written),
//
// and the facts that name the canonical entity in their text with no link
// to it. Those were written before the store knew the entity (a name that
// opens a sentence links only a known entity, yet the vector holds it), so
// their ids are below the entity's first linked fact, and the full-text
// index lists them (holomem.WordFinder). What only a scan finds beyond
// these is chance: a vector that holds none of the names scoring above the
// noise floor (about one probe in three at 1M facts, none in the top 10 of
// the equality test) or a vector written under an alias since deleted.
func (m *Memory) entityCandidates(ctx context.Context, namespace, name string) (candidates, error) {
	name = strings.TrimSpace(name)
	key := m.resolveEntity(ctx, namespace, name)
	named, err := m.store.FactIDsByEntity(ctx, namespace, name)
	if err != nil {
		return candidates{}, err
	}
	out := candidates{members: make(map[int64]bool, len(named))}
	for _, id := range named {
		out.members[id] = true
	}
	lists := [][]int64{named}
	canon := named
	if text.EntityKey(name) != key {
		if canon, err = m.store.FactIDsByEntity(ctx, namespace, key); err != nil {
			return candidates{}, err
		}
		lists = append(lists, canon)
	}
	for _, alias := range m.aliasesOf(ctx, namespace, key) {
		if alias == text.EntityKey(name) {
			continue
		}
		e, err := m.store.FindEntity(ctx, namespace, alias)
		if errors.Is(err, holomem.ErrNotFound) {
			continue
		}
		if err != nil {
			return candidates{}, err
		}
		if text.EntityKey(e.Name) != alias {
			continue // the alias stands for the canonical entity: its facts are canon
		}
		ids, err := m.store.FactIDsByEntity(ctx, namespace, alias)
		if err != nil {
			return candidates{}, err
		}
		lists = append(lists, ids)
	}
	var before int64 // the canonical entity's first linked fact
	if len(canon) > 0 {
		before = canon[0]
	}
	if words, prefixes := keyWords(key); len(words)+len(prefixes) > 0 {
		wf, _ := holomem.As[holomem.WordFinder](m.store)
		ids, err := wf.FactIDsWithWords(ctx, namespace, words, prefixes, before)
		if err != nil {
			return candidates{}, err
		}
		lists = append(lists, ids)
	}
	out.ids = unionSorted(lists)
	return out, nil
}

// keyWords splits an entity key into the words a text naming it holds:
// ASCII words as they are, the others (Cyrillic words, which the key holds
// as name stems, see text.EntityKey) as prefixes.
func keyWords(key string) (words, prefixes []string) {
	for _, w := range text.Tokens(key) {
		if isASCII(w) {
			words = append(words, w)
		} else {
			prefixes = append(prefixes, w)
		}
	}
	return words, prefixes
}

func isASCII(s string) bool {
	for i := range len(s) {
		if s[i] >= 0x80 {
			return false
		}
	}
	return true
}

// aliasesOf returns the alias keys that resolve to key, sorted.
func (m *Memory) aliasesOf(ctx context.Context, namespace, key string) []string {
	var out []string
	for a, canon := range m.aliasMap(ctx, namespace) {
		if canon == key && a != key {
			out = append(out, a)
		}
	}
	slices.Sort(out)
	return out
}

// unionSorted merges id lists (each sorted) into one sorted list without
// repeats.
func unionSorted(lists [][]int64) []int64 {
	if len(lists) == 1 {
		return lists[0]
	}
	n := 0
	for _, l := range lists {
		n += len(l)
	}
	out := make([]int64, 0, n)
	for _, l := range lists {
		out = append(out, l...)
	}
	slices.Sort(out)
	return slices.Compact(out)
}

// intersectSorted returns the ids in both sorted lists.
func intersectSorted(a, b []int64) []int64 {
	var out []int64
	for i, j := 0, 0; i < len(a) && j < len(b); {
		switch {
		case a[i] < b[j]:
			i++
		case a[i] > b[j]:
			j++
		default:
			out = append(out, a[i])
			i++
			j++
		}
	}
	return out
}

// intersectMembers returns the ids in both sets.
func intersectMembers(a, b map[int64]bool) map[int64]bool {
	out := map[int64]bool{}
	for id := range a {
		if b[id] {
			out[id] = true
		}
	}
	return out
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
	if err := allow(ctx, namespace, false); err != nil {
		return nil, err
	}
	return m.related(ctx, namespace, entity, limit, false)
}

// related is Related, over a scan of every vector when scan is set.
func (m *Memory) related(ctx context.Context, namespace, entity string, limit int, scan bool) ([]holomem.EntityHit, error) {
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
	floor := hrr.NoiseFloor(hrr.DefaultSigmas)
	items, members, err := m.relatedItems(ctx, namespace, entity, key, floor, scan)
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
	var within func(int64, []string) []int
	if !scan {
		if within, err = m.namesWithin(ctx, namespace, ids); err != nil {
			return nil, fmt.Errorf("related: %w", err)
		}
	}
	conns := hrr.RelatedWithin(key, items, book, floor, 0, within)
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

// relatedItems returns, in id order, the facts whose vectors hold key
// above floor, and the facts the store links to entity: from the entity's
// candidates (see entityCandidates), or from a scan of every vector when
// the store cannot list facts by words or scan is set.
func (m *Memory) relatedItems(ctx context.Context, namespace, entity, key string, floor float64, scan bool) ([]hrr.Item, map[int64]bool, error) {
	pk := hrr.ProbeKey(key)
	var items []hrr.Item
	keep := func(id int64, v []byte) error {
		if hrr.Check(v) == nil && pk.Score(v) >= floor {
			items = append(items, hrr.Item{ID: id, HRR: slices.Clone(v)})
		}
		return ctx.Err()
	}
	if _, ok := holomem.As[holomem.WordFinder](m.store); scan || !ok {
		if err := m.hrr.scan(ctx, namespace, keep); err != nil {
			return nil, nil, err
		}
		slices.SortFunc(items, func(a, b hrr.Item) int { return cmp.Compare(a.ID, b.ID) })
		members, err := m.linkedToAll(ctx, namespace, []string{entity})
		return items, members, err
	}
	c, err := m.entityCandidates(ctx, namespace, entity)
	if err != nil {
		return nil, nil, err
	}
	if err := m.hrr.each(ctx, namespace, c.ids, keep); err != nil {
		return nil, nil, err
	}
	return items, c.members, nil
}

// namesWithin returns, for hrr.RelatedWithin, which candidate names each
// of the facts ids can hold in its vector: those whose words, or an
// alias's words, all occur in the fact's text (a vector holds the entities
// its text names, aliases resolved). Related then scores a fact against
// the few names it mentions instead of every name its entity's facts
// mention (thousands when the entity has thousands of facts). Words are
// compared as entity keys compare them (Cyrillic words by their name
// stems). A name without words (none that package text keeps) is tried in
// every fact.
func (m *Memory) namesWithin(ctx context.Context, namespace string, ids []int64) (func(int64, []string) []int, error) {
	facts, err := m.loadFacts(ctx, ids, false, true)
	if err != nil {
		return nil, err
	}
	content := make(map[int64]string, len(facts))
	for _, f := range facts {
		content[f.ID] = f.Content
	}
	aliases := map[string][]string{} // canonical key -> alias keys
	for a, canon := range m.aliasMap(ctx, namespace) {
		aliases[canon] = append(aliases[canon], a)
	}
	type wordSet struct {
		name  int
		words []string
	}
	var byFirst map[string][]wordSet // first word -> the word sets starting with it
	var always []int
	var seen []int64 // seen[j] == stamp: j already chosen for this fact
	var stamp int64
	return func(id int64, names []string) []int {
		if byFirst == nil {
			byFirst = map[string][]wordSet{}
			seen = make([]int64, len(names))
			for j, n := range names {
				forms := append([]string{n}, aliases[n]...)
				for _, f := range forms {
					w := text.Tokens(f)
					if len(w) == 0 {
						always = append(always, j)
						break
					}
					byFirst[w[0]] = append(byFirst[w[0]], wordSet{j, w})
				}
			}
			slices.Sort(always)
			always = slices.Compact(always)
		}
		stamp++
		has := map[string]bool{}
		for _, w := range text.Tokens(content[id]) {
			has[w] = true
			has[text.EntityKey(w)] = true // a Cyrillic word's name stem
		}
		out := slices.Clone(always)
		for _, j := range always {
			seen[j] = stamp
		}
		for w := range has {
			for _, ws := range byFirst[w] {
				if seen[ws.name] == stamp {
					continue
				}
				ok := true
				for _, x := range ws.words[1:] {
					if !has[x] {
						ok = false
						break
					}
				}
				if ok {
					seen[ws.name] = stamp
					out = append(out, ws.name)
				}
			}
		}
		return out
	}, nil
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
// the floor) and returns the best limit as hits. It is the algebra of a
// store that cannot list facts by words (no holomem.WordFinder); the
// others score their postings with scoreAlgebra, which answers the same.
func (m *Memory) scanAlgebra(ctx context.Context, namespace string, keys []*hrr.Key, members map[int64]bool, limit int) ([]holomem.Hit, error) {
	if namespace == "" {
		namespace = holomem.DefaultNamespace
	}
	floor := hrr.NoiseFloor(hrr.DefaultSigmas)
	var scored []hrr.Scored
	err := m.hrr.scan(ctx, namespace, func(id int64, v []byte) error {
		if s, ok := algebraScore(keys, members[id], v, floor); ok {
			scored = append(scored, hrr.Scored{ID: id, Score: s})
		}
		return ctx.Err()
	})
	if err != nil {
		return nil, fmt.Errorf("scan hrr: %w", err)
	}
	return m.bestHits(ctx, scored, limit)
}

// scoreAlgebra is scanAlgebra over the candidate facts ids only, their
// vectors read from the cache by id.
func (m *Memory) scoreAlgebra(ctx context.Context, namespace string, keys []*hrr.Key, members map[int64]bool, ids []int64, limit int) ([]holomem.Hit, error) {
	floor := hrr.NoiseFloor(hrr.DefaultSigmas)
	var scored []hrr.Scored
	err := m.hrr.each(ctx, namespace, ids, func(id int64, v []byte) error {
		if s, ok := algebraScore(keys, members[id], v, floor); ok {
			scored = append(scored, hrr.Scored{ID: id, Score: s})
		}
		return nil
	})
	if err != nil {
		return nil, fmt.Errorf("score hrr: %w", err)
	}
	return m.bestHits(ctx, scored, limit)
}

// algebraScore scores the vector v against every key (the minimum counts)
// and reports whether it is a hit: above the floor, or a member (scored at
// least at the floor).
func algebraScore(keys []*hrr.Key, member bool, v []byte, floor float64) (float64, bool) {
	if hrr.Check(v) != nil {
		return 0, false
	}
	s := 2.0
	for _, k := range keys {
		s = min(s, k.Score(v))
		if s < floor && !member {
			return 0, false
		}
	}
	if member {
		s = max(s, floor)
	}
	return s, true
}

// bestHits returns the best limit of scored (ties by id) as hits.
func (m *Memory) bestHits(ctx context.Context, scored []hrr.Scored, limit int) ([]holomem.Hit, error) {
	if limit <= 0 {
		limit = holomem.DefaultLimit
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
