package sqlite

import (
	"bytes"
	"context"
	"database/sql"
	"slices"
	"sync"
	"time"
)

// entitiesCache holds EntitiesOf's answers per fact id. Recall attaches
// the entities of every hit it returns, and in a warm server the same facts
// come back query after query: reading their links (a join per name, ~47
// names per fact on the Zipf benchmark) was a quarter of recall's CPU.
//
// An entry is valid while nothing can have changed the fact's links:
//   - key is the full-text index's mark (qFTSMark, read in the same read
//     transaction as the links). Every write that links or unlinks a fact's
//     entities (adding, updating, deleting, importing facts; promoting a
//     word to an entity for older facts happens while adding one) also
//     writes the index, which changes the mark, in this process or another;
//   - epoch is bumped by RelinkEntities, the one write that relinks facts
//     without touching the index, in this process;
//   - at bounds the staleness after a relink by another process (an
//     administrative backfill) to entityCacheTTL.
type entitiesCache struct {
	mu    sync.Mutex
	key   []byte
	epoch uint64
	at    time.Time
	names map[int64][]string // nil slice: the fact has no entities
}

// entityCacheTTL bounds how long cached entity lists are trusted when only
// another process's relink could have changed them.
const entityCacheTTL = 30 * time.Second

// maxCachedEntityFacts bounds the cache (facts); past it, it starts over.
const maxCachedEntityFacts = 8192

// lookup returns the cached names of ids under mark key and the ids it
// does not hold, resetting the cache when key, the TTL or a relink says it
// is stale. It returns the epoch to store the missing ones under.
func (c *entitiesCache) lookup(key []byte, ids []int64, out map[int64][]string) (missing []int64, epoch uint64) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.names == nil || !bytes.Equal(c.key, key) || time.Since(c.at) > entityCacheTTL || len(c.names) > maxCachedEntityFacts {
		c.key, c.at, c.names = bytes.Clone(key), time.Now(), map[int64][]string{}
	}
	for _, id := range ids {
		names, ok := c.names[id]
		if !ok {
			missing = append(missing, id)
			continue
		}
		if names != nil {
			out[id] = slices.Clone(names)
		}
	}
	return missing, c.epoch
}

// store remembers the names read for ids (absent from got: no entities)
// when the cache is still the one lookup saw.
func (c *entitiesCache) store(key []byte, epoch uint64, ids []int64, got map[int64][]string) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.epoch != epoch || !bytes.Equal(c.key, key) || c.names == nil {
		return
	}
	for _, id := range ids {
		c.names[id] = slices.Clone(got[id])
	}
}

// invalidate drops every entry; lookups that started before it do not
// store what they read.
func (c *entitiesCache) invalidate() {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.epoch++
	c.names = nil
}

// ftsMark reads the index's mark (qFTSMark): the averages and structure
// records concatenated, and the averages record alone.
func ftsMark(ctx context.Context, tx *sql.Tx, st *sql.Stmt) (key, avg []byte, err error) {
	rows, err := txQuery(ctx, tx, st, qFTSMark)
	if err != nil {
		return nil, nil, err
	}
	defer rows.Close()
	for rows.Next() {
		var id int64
		var b []byte
		if err := rows.Scan(&id, &b); err != nil {
			return nil, nil, err
		}
		key = append(key, b...)
		if id == 1 {
			avg = b
		}
	}
	return key, avg, rows.Err()
}
