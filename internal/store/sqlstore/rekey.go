package sqlstore

import "github.com/holomem/holomem/text"

// EntityRow is a row of the entities table.
type EntityRow struct {
	ID                   int64
	Namespace, Name, Key string
}

// RekeyStep is one change that bringing entity keys up to date makes: the
// entity ID takes Key, or, when Into is not 0, merges into entity Into
// (its links and aliases move there and it is deleted).
type RekeyStep struct {
	ID   int64
	Key  string
	Into int64
}

// PlanRekey returns the steps that set every entity's key to
// text.EntityKey of its name, for es in id order: entities whose new keys
// meet merge into the one that holds the key (the lowest id keeps its
// name when two change to the same key).
func PlanRekey(es []EntityRow) []RekeyStep {
	type nk struct{ ns, key string }
	keep := make(map[nk]int64, len(es))
	for _, e := range es {
		keep[nk{e.Namespace, e.Key}] = e.ID
	}
	var steps []RekeyStep
	for _, e := range es {
		k := text.EntityKey(e.Name)
		if k == e.Key {
			continue
		}
		if to, ok := keep[nk{e.Namespace, k}]; ok && to != e.ID {
			steps = append(steps, RekeyStep{ID: e.ID, Key: k, Into: to})
			continue
		}
		steps = append(steps, RekeyStep{ID: e.ID, Key: k})
		delete(keep, nk{e.Namespace, e.Key})
		keep[nk{e.Namespace, k}] = e.ID
	}
	return steps
}

// AliasRow is a row of the entity_aliases table (its entity aside).
type AliasRow struct{ Namespace, Alias, Key string }

// AliasRekey is an alias whose key must become NewKey.
type AliasRekey struct {
	AliasRow
	NewKey string
}

// PlanAliasRekey returns the aliases whose key is not text.EntityKey of
// the alias, with that key.
func PlanAliasRekey(as []AliasRow) []AliasRekey {
	var out []AliasRekey
	for _, a := range as {
		if k := text.EntityKey(a.Alias); k != a.Key {
			out = append(out, AliasRekey{a, k})
		}
	}
	return out
}
