// Package sqlstore holds what the two SQL stores (package sqlite and
// package postgres) do the same way over different drivers, so that it is
// written once: row encoding and scanning, the statements of the reads and
// writes that differ only in spelling (a Dialect gives the spelling, and
// PostgreSQL rebinds the shared ? placeholders), entity and alias
// bookkeeping (which entities a new fact links, when a recurring word
// becomes an entity), edges, stats, meta and the hook log. Base carries
// the holomem.Store methods that are the same on both; each store embeds
// it and keeps its driver, full-text index, migrations, caches and
// batching.
package sqlstore

import (
	"fmt"
	"strings"

	"github.com/holomem/holomem/text"
)

// EntityTx is what LinkEntities asks of a store's write transaction.
// Implementations may answer from caches; every answer must be what the
// database would say at that point of the transaction.
type EntityTx interface {
	// ResolveEntity returns the namespace's entity whose key, or else one
	// of whose alias keys, is key; id 0 when there is none.
	ResolveEntity(namespace, key string) (id int64, name string, err error)
	// TermFacts returns the ids of the namespace's facts, other than
	// except, whose indexed words (tokens and their stems) hold the single
	// index token of the term key (see TermToken), as the namespace held
	// them before fact except was stored: committed facts and the facts
	// this transaction stored earlier, never a fact of the same batch that
	// comes later. None when the key is no single token.
	TermFacts(namespace, key string, except int64) ([]int64, error)
	// CreateEntity creates the entity name with key and returns its id and
	// name (another transaction's entity, if it won a race to create it).
	CreateEntity(namespace, name, key string) (id int64, stored string, err error)
	// AddAlias records alias (with its key) for entity id, unless the
	// namespace has that alias key already.
	AddAlias(id int64, namespace, alias, aliasKey string) error
	// PromoteTerm links those of the facts ids whose entities
	// (text.Extract of content and tags) include one with key, to entity
	// id, after the entities they have.
	PromoteTerm(key string, id int64, ids []int64) error
	// LinkFact links fact factID to the entities ids, ids[i] at position i.
	LinkFact(factID int64, ids []int64) error
}

// LinkEntities creates the missing entities of ents (text.Extract of a
// fact's content and tags) and their aliases, links them to the fact and
// returns their names in order of appearance. A name that is an alias of
// a known entity links to that entity. A recurring candidate
// ([text.Entity.Recurring]) links only when its entity exists, except a
// term, which becomes one when text.MinTermFacts facts of the namespace
// contain it: the earlier facts that mention it are linked then
// (EntityTx.PromoteTerm). A sentence opener ("Release", "Команда") never
// makes an entity by itself.
func LinkEntities(tx EntityTx, factID int64, namespace string, ents []text.Entity) ([]string, error) {
	var names []string
	var ids []int64
	for _, e := range ents {
		key := text.EntityKey(e.Name)
		if key == "" {
			continue
		}
		id, name, err := tx.ResolveEntity(namespace, key)
		if err != nil {
			return nil, fmt.Errorf("resolve entity %q: %w", e.Name, err)
		}
		var others []int64 // facts to link when a term becomes an entity
		if id == 0 && e.Kind == text.EntityTerm {
			if others, err = tx.TermFacts(namespace, key, factID); err != nil {
				return nil, fmt.Errorf("term %q: %w", key, err)
			}
			if e.Recurring && len(others)+1 < text.MinTermFacts {
				continue
			}
		}
		if id == 0 && e.Recurring && e.Kind != text.EntityTerm {
			continue // a sentence opener names only a known entity
		}
		if id == 0 {
			if id, name, err = tx.CreateEntity(namespace, e.Name, key); err != nil {
				return nil, fmt.Errorf("create entity %q: %w", e.Name, err)
			}
		}
		for _, a := range e.Aliases {
			ak := text.EntityKey(a)
			if ak == "" || ak == key {
				continue
			}
			if err := tx.AddAlias(id, namespace, a, ak); err != nil {
				return nil, fmt.Errorf("create alias %q: %w", a, err)
			}
		}
		if len(others) > 0 {
			if err := tx.PromoteTerm(key, id, others); err != nil {
				return nil, fmt.Errorf("promote %q: %w", key, err)
			}
		}
		if containsID(ids, id) {
			continue
		}
		ids = append(ids, id)
		names = append(names, name)
	}
	if len(ids) > 0 {
		if err := tx.LinkFact(factID, ids); err != nil {
			return nil, fmt.Errorf("link entities %q: %w", names, err)
		}
	}
	return names, nil
}

func containsID(ids []int64, id int64) bool {
	for _, x := range ids {
		if x == id {
			return true
		}
	}
	return false
}

// TermToken returns the full-text token a term's document frequency is
// counted by: the only token of its key. ok is false for a key that is
// not one token ("docker-compose", "--dry-run") or that would need
// quoting, whose facts are then not counted.
func TermToken(key string) (tok string, ok bool) {
	if strings.ContainsAny(key, " \"") {
		return "", false
	}
	toks := text.Tokens(key)
	if len(toks) != 1 {
		return "", false
	}
	return toks[0], true
}

// Mentions reports whether the entities of a fact's content and tags
// include one with key: the check PromoteTerm makes of each fact the
// full-text index found.
func Mentions(ents []text.Entity, key string) bool {
	for _, e := range ents {
		if text.EntityKey(e.Name) == key {
			return true
		}
	}
	return false
}

// RelinkTx is an EntityTx that can also drop a fact's links and delete
// the entities no fact links any more.
type RelinkTx interface {
	EntityTx
	// UnlinkEntities removes the fact's links and returns the ids of the
	// entities it had, for PruneEntities.
	UnlinkEntities(factID int64) ([]int64, error)
	// PruneEntities deletes those of ids that no fact links any more.
	PruneEntities(ids []int64) error
}

// Relink derives a fact's entities again from its (new) content and tags:
// its links are dropped, LinkEntities links them anew, and the entities
// it no longer names that no other fact names are deleted.
func Relink(tx RelinkTx, factID int64, namespace, content string, tags []string) ([]string, error) {
	old, err := tx.UnlinkEntities(factID)
	if err != nil {
		return nil, err
	}
	names, err := LinkEntities(tx, factID, namespace, text.Extract(content, tags))
	if err != nil {
		return nil, err
	}
	return names, tx.PruneEntities(old)
}

// FactText is what relinking reads of a fact: its id, namespace, content
// and tags column.
type FactText struct {
	ID                       int64
	Namespace, Content, Tags string
}

// ScanFactText scans a row of (id, namespace, content, tags).
func ScanFactText(r Rows, f *FactText) error {
	return r.Scan(&f.ID, &f.Namespace, &f.Content, &f.Tags)
}
