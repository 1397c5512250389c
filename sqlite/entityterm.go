package sqlite

import (
	"database/sql"
	"encoding/json"
	"fmt"
	"slices"
	"strings"

	"github.com/holomem/holomem"
	"github.com/holomem/holomem/internal/store/sqlstore"
	"github.com/holomem/holomem/text"
)

// linkCache is what linkEntities learns during one write transaction, so
// that a bulk import asks the database each question once. Text whose words
// are not on the English word list (jargon, French or German notes,
// generated words) makes nearly every word a recurring candidate (see
// text.Extract), and each candidate asked up to three questions per fact:
// is it an entity, which committed facts hold it, and, on promotion, do
// those facts mention it (their content extracted again).
//
// Every answer stays exact for the life of the transaction:
//   - absent: keys that resolve to no entity. Only this transaction can
//     create entities and aliases (BEGIN IMMEDIATE), and linkEntities
//     forgets a key when it creates an entity or alias with it;
//     rekeyEntities forgets them all. Deleting entities (PruneEntities)
//     keeps an absent key absent.
//   - committed: termFacts' committed facts holding a word, read through
//     the read pool, which sees the last commit: no other writer can commit
//     while this transaction holds the write lock.
//   - keys: the entity keys (extractEntities) of a fact's content and tags,
//     noted by createFact for the facts it creates and by promoteTerm for
//     the older facts it reads. linkEntities drops a fact's entry, since
//     relinking a fact means its content may have changed.
//   - own: the words of the facts this transaction created (their index
//     text, tokens and stems, diacritics folded as FTS5 folds them), by
//     namespace and word, for TermFacts: committed answers do not hold
//     them, and a batch must count a word as adding its facts one by one
//     would. Facts are noted as they are created (ownRows) and indexed
//     when TermFacts first needs them.
type linkCache struct {
	absent    map[entityCacheKey]bool
	committed map[entityCacheKey][]int64
	keys      map[int64][]string
	own       map[entityCacheKey][]int64
	ownRows   []ownFact
}

// ownFact is a fact this transaction created, with its index text.
type ownFact struct {
	id                     int64
	namespace, body, label string
}

// noteAbsent records that key resolves to no entity.
func (c *linkCache) noteAbsent(ck entityCacheKey) {
	if c.absent == nil {
		c.absent = make(map[entityCacheKey]bool)
	}
	c.absent[ck] = true
}

// noteOwn records fact id, just created in namespace with the index text
// content and tags (text.IndexText), for ownFacts.
func (c *linkCache) noteOwn(id int64, namespace, content, tags string) {
	c.ownRows = append(c.ownRows, ownFact{id, namespace, content, tags})
}

// ownFacts returns the facts of this transaction, in order of creation,
// whose index text holds the full-text token tok.
func (c *linkCache) ownFacts(namespace, tok string) []int64 {
	if len(c.ownRows) > 0 {
		if c.own == nil {
			c.own = make(map[entityCacheKey][]int64)
		}
		for _, f := range c.ownRows {
			for _, s := range [2]string{f.body, f.label} {
				for w := range strings.FieldsSeq(s) {
					k := entityCacheKey{f.namespace, sqlstore.FoldDiacritics(w)}
					if ids := c.own[k]; len(ids) == 0 || ids[len(ids)-1] != f.id {
						c.own[k] = append(ids, f.id)
					}
				}
			}
		}
		c.ownRows = c.ownRows[:0]
	}
	return c.own[entityCacheKey{namespace, sqlstore.FoldDiacritics(tok)}]
}

// noteKeys records the entity keys of fact id's entities ents, which must
// be extractEntities of its stored content and tags.
func (c *linkCache) noteKeys(id int64, ents []text.Entity) {
	if c.keys == nil {
		c.keys = make(map[int64][]string)
	}
	c.keys[id] = entityKeys(ents)
}

// entityKeys returns the keys of ents, in order.
func entityKeys(ents []text.Entity) []string {
	keys := make([]string, len(ents))
	for i, e := range ents {
		keys[i] = entityKey(e.Name)
	}
	return keys
}

// qResolveEntities is qResolveEntity for a JSON list of keys: a key's
// entity (found 0) and the entity an alias key names (found 1).
const qResolveEntities = `SELECT key, id, name, 0 FROM entities
		WHERE namespace = ? AND key IN (SELECT value FROM json_each(?))
	UNION ALL
	SELECT a.alias_key, e.id, e.name, 1 FROM entity_aliases a JOIN entities e ON e.id = a.entity_id
		WHERE a.namespace = ? AND a.alias_key IN (SELECT value FROM json_each(?))`

// prefetchLinks answers, in a few statements per namespace, the questions
// linkEntities will ask about the entities of facts about to be created
// (ds[i] derived from fs[i]): which keys are entities, and which committed
// facts hold each recurring word (see linkCache). Asked one key at a time,
// as linkEntities does for what is not cached, each was a statement, and a
// full-text one for every word.
func (w *wtx) prefetchLinks(fs []*holomem.Fact, ds []derived) error {
	type nsKeys struct {
		keys, terms []string
		seen        map[string]bool
	}
	byNS := map[string]*nsKeys{}
	var order []string
	for i, f := range fs {
		k := byNS[f.Namespace]
		if k == nil {
			k = &nsKeys{seen: map[string]bool{}}
			byNS[f.Namespace] = k
			order = append(order, f.Namespace)
		}
		for _, e := range ds[i].entities {
			key := entityKey(e.Name)
			ck := entityCacheKey{f.Namespace, key}
			if key == "" || k.seen[key] {
				continue
			}
			k.seen[key] = true
			if _, ok := w.entities[ck]; ok {
				continue
			}
			if !w.link.absent[ck] {
				k.keys = append(k.keys, key)
			}
			if e.Kind == text.EntityTerm {
				k.terms = append(k.terms, key)
			}
		}
	}
	for _, ns := range order {
		k := byNS[ns]
		if err := w.resolveEntities(ns, k.keys); err != nil {
			return fmt.Errorf("resolve entities: %w", err)
		}
		var terms []string
		for _, key := range k.terms {
			ck := entityCacheKey{ns, key}
			if _, ok := w.link.committed[ck]; !ok && w.link.absent[ck] {
				terms = append(terms, key)
			}
		}
		if err := w.prefetchTermFacts(ns, terms); err != nil {
			return fmt.Errorf("term facts: %w", err)
		}
	}
	return nil
}

// resolveEntities resolves keys as resolveEntity does, into w.entities
// (found) and w.link.absent (not found).
func (w *wtx) resolveEntities(namespace string, keys []string) error {
	if len(keys) == 0 {
		return nil
	}
	list, err := json.Marshal(keys)
	if err != nil {
		return err
	}
	rows, err := w.query(qResolveEntities, namespace, string(list), namespace, string(list))
	if err != nil {
		return err
	}
	defer rows.Close()
	type hit struct {
		ref   entityRef
		alias bool
	}
	found := make(map[string]hit)
	for rows.Next() {
		var key string
		var h hit
		if err := rows.Scan(&key, &h.ref.id, &h.ref.name, &h.alias); err != nil {
			return err
		}
		if old, ok := found[key]; !ok || old.alias && !h.alias {
			found[key] = h // the entity's own key wins over an alias
		}
	}
	if err := rows.Err(); err != nil {
		return err
	}
	if w.entities == nil {
		w.entities = make(map[entityCacheKey]entityRef)
	}
	for _, key := range keys {
		ck := entityCacheKey{namespace, key}
		if h, ok := found[key]; ok {
			w.entities[ck] = h.ref
		} else {
			w.link.noteAbsent(ck)
		}
	}
	return nil
}

// maxTermArms is the most terms one prefetch statement asks about (SQLite
// allows 500 arms in a compound SELECT).
const maxTermArms = 64

// armCount rounds n up to one of a few statement sizes, so that the read
// pool prepares few distinct statements; the extra arms repeat a term.
func armCount(n int) int {
	for _, k := range []int{1, 4, 16} {
		if n <= k {
			return k
		}
	}
	return maxTermArms
}

// termMatchSQL is n full-text lookups in one statement: the facts of a
// namespace holding term i as rows (i, id), from the arguments (match,
// namespace) of each arm. The namespace is the facts row's, not the scope
// token's: both say the same (a fact never changes namespace), and the two
// scope tokens a scoped match also looks up hold every fact of the
// namespace, which cost twice the word's own lookup.
func termMatchSQL(n int) string {
	return unionArms(n, "SELECT %d, f.id FROM facts_fts JOIN facts f ON f.id = facts_fts.rowid WHERE facts_fts MATCH ? AND f.namespace = ?")
}

// prefetchTermFacts fills w.link.committed for the term keys (absent
// entities), as termFacts would one at a time.
func (w *wtx) prefetchTermFacts(namespace string, keys []string) error {
	var terms []string // index terms
	byTerm := map[string][]string{}
	for _, key := range keys {
		toks := text.Tokens(key)
		if strings.ContainsAny(key, " \"") || len(toks) != 1 {
			continue // termFacts does not ask
		}
		if byTerm[toks[0]] == nil {
			terms = append(terms, toks[0])
		}
		byTerm[toks[0]] = append(byTerm[toks[0]], key)
	}
	ids, err := w.termMatches(namespace, terms)
	if err != nil {
		return err
	}
	if w.link.committed == nil {
		w.link.committed = make(map[entityCacheKey][]int64)
	}
	for i, tok := range terms {
		for _, key := range byTerm[tok] {
			w.link.committed[entityCacheKey{namespace, key}] = ids[i]
		}
	}
	return nil
}

// termMatches returns, for each index term, the ids of the namespace's
// committed facts (live or superseded) that hold it, newest first.
func (w *wtx) termMatches(namespace string, terms []string) ([][]int64, error) {
	out := make([][]int64, len(terms))
	for from := 0; from < len(terms); from += maxTermArms {
		chunk := terms[from:min(from+maxTermArms, len(terms))]
		n := armCount(len(chunk))
		args := make([]any, 0, 2*n)
		for i := range n {
			args = append(args, `{content tags} : "`+chunk[min(i, len(chunk)-1)]+`"`, namespace)
		}
		err := w.readRows(termMatchSQL(n), args, func(rows *sql.Rows) error {
			var i int
			var id int64
			if err := rows.Scan(&i, &id); err != nil {
				return err
			}
			if i < len(chunk) {
				out[from+i] = append(out[from+i], id)
			}
			return nil
		})
		if err != nil {
			return nil, err
		}
	}
	for _, ids := range out {
		slices.Sort(ids)
		slices.Reverse(ids)
	}
	return out, nil
}

// readRows runs q on the read pool (prepared when the pool has room) and
// calls fn for each row.
func (w *wtx) readRows(q string, args []any, fn func(*sql.Rows) error) error {
	var rows *sql.Rows
	var err error
	if w.s.rdb == w.s.wdb {
		// One connection (WithOneConnection): this transaction's.
		rows, err = w.query(q, args...)
	} else if st := w.s.readStmt(w.ctx, q); st != nil {
		rows, err = st.QueryContext(w.ctx, args...)
	} else {
		rows, err = w.s.rdb.QueryContext(w.ctx, q, args...)
	}
	return eachRow(rows, err, fn)
}
