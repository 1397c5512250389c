package sqlite

import (
	"context"
	"fmt"
	"runtime"
	"sync"

	"github.com/holomem/holomem"
	"github.com/holomem/holomem/internal/leaf/rowcodec"
	"github.com/holomem/holomem/internal/store/sqlstore"
	"github.com/holomem/holomem/text"
)

// Hot lookups, named so plan_test.go can check they use an index.
const (
	qFactByHash      = sqlstore.QFactByHash
	qOtherFactByHash = sqlstore.QOtherFactByHash
	qFactByKey       = sqlstore.QFactByKey
)

// CreateFact stores f after normalising and validating it, and fills its
// ID, timestamps and entities. CreatedAt, UpdatedAt and the counters are
// kept when the caller sets them (imports preserve history); zero times
// become now. f.ID is ignored: the store assigns ids. When the namespace
// already holds the same external key, or f has no key and the namespace
// holds the same content, the existing fact is loaded into f and created is
// false. Returns ErrInvalid for bad
// input.
func (s *Store) CreateFact(ctx context.Context, f *holomem.Fact) (bool, error) {
	created, _, err := s.createOne(ctx, f, false)
	return created, err
}

// CreateFactLogged is CreateFact that also returns the seq of the feed row
// the insert of f's row wrote; see [holomem.OwnChangeFeeder].
func (s *Store) CreateFactLogged(ctx context.Context, f *holomem.Fact) (bool, holomem.FactChange, error) {
	return s.createOne(ctx, f, true)
}

// qOwnChange finds, in the transaction that inserted fact_id, the feed row
// its insert trigger wrote: the first of fact_id's after the head the
// transaction started from (the write lock keeps other writers out).
const qOwnChange = "SELECT seq FROM fact_changes WHERE seq > ? AND fact_id = ? ORDER BY seq LIMIT 1"

// createOne runs CreateFact; with logged, it reads the feed head before
// the insert and the insert's feed row after it, in the same transaction.
func (s *Store) createOne(ctx context.Context, f *holomem.Fact, logged bool) (bool, holomem.FactChange, error) {
	if err := rowcodec.PrepareFact(f); err != nil {
		return false, holomem.FactChange{}, fmt.Errorf("create fact: %w", err)
	}
	p := deriveFact(f, nil)
	var (
		created bool
		change  holomem.FactChange
	)
	err := s.update(ctx, func(w *wtx) error {
		var head int64
		if logged {
			if err := w.queryRow(qFactChangeHead).Scan(&head); err != nil {
				return fmt.Errorf("change feed: %w", err)
			}
		}
		if err := w.prefetchLinks([]*holomem.Fact{f}, []derived{p}); err != nil {
			return err
		}
		var err error
		if created, err = w.createFact(f, &p); err != nil {
			return err
		}
		if created && logged {
			if err := w.queryRow(qOwnChange, head, f.ID).Scan(&change.At); err != nil {
				return fmt.Errorf("change feed: %w", err)
			}
			change.ID = f.ID
		}
		return w.flushFTS()
	})
	if err != nil {
		return false, holomem.FactChange{}, fmt.Errorf("create fact: %w", err)
	}
	return created, change, nil
}

// CreateFacts stores many facts in one transaction with the same rules as
// CreateFact. Nothing is stored when one fact is invalid; the error names
// its index. It is [Store.PrepareFacts] and its write at once.
func (s *Store) CreateFacts(ctx context.Context, fs []*holomem.Fact) ([]bool, error) {
	write, err := s.PrepareFacts(fs, nil)
	if err != nil {
		return nil, err
	}
	return write(ctx)
}

// PrepareFacts is CreateFacts in two steps: it validates fs and derives
// what does not need the database (content hashes, the indexed text with
// its stems, entity extraction) on all cores now, and returns the write,
// which takes the write lock and stores them in one transaction. A bulk
// import prepares the next batch while the write of one runs (see
// retrieve.Memory.ImportBatches), so the single writer only writes. The
// write must run once, and fs must not change in between. known, when
// not nil, holds a caller's text.Extract(content, nil) per fact (nil
// where it has none): a fact without tags whose content is unchanged
// takes its entities from there instead of extracting them again.
func (s *Store) PrepareFacts(fs []*holomem.Fact, known []*text.Extraction) (write func(context.Context) ([]bool, error), err error) {
	for i, f := range fs {
		if err := rowcodec.PrepareFact(f); err != nil {
			return nil, fmt.Errorf("create facts: fact %d: %w", i, err)
		}
	}
	derived := deriveFacts(fs, known)
	return func(ctx context.Context) ([]bool, error) { return s.createFacts(ctx, fs, derived) }, nil
}

// createFacts writes fs (prepared, with derived[i] from fs[i]) in one
// transaction.
func (s *Store) createFacts(ctx context.Context, fs []*holomem.Fact, derived []derived) ([]bool, error) {
	created := make([]bool, len(fs))
	err := s.update(ctx, func(w *wtx) error {
		if err := w.growWriteCache(); err != nil {
			return err
		}
		if err := w.prefetchLinks(fs, derived); err != nil {
			return err
		}
		if err := w.prefetchDups(fs, derived); err != nil {
			return err
		}
		for i, f := range fs {
			if i%256 == 0 {
				if err := ctx.Err(); err != nil {
					return err
				}
			}
			c, err := w.createFact(f, &derived[i])
			if err != nil {
				return fmt.Errorf("fact %d: %w", i, err)
			}
			created[i] = c
		}
		return w.flushFTS()
	})
	if err != nil {
		return nil, fmt.Errorf("create facts: %w", err)
	}
	return created, nil
}

// bulkCacheKiB is the write connection's page cache once it has run a
// bulk write: SQLite's default of 2 MiB holds less than the facts indexes
// of 100,000 facts, and each batch's inserts, at random places in them,
// then spilled and re-read pages (5% of a 100k import's CPU).
const bulkCacheKiB = 64 << 10

// growWriteCache grows the write connection's page cache to bulkCacheKiB
// the first time CreateFacts runs, for the rest of the process: processes
// that only add facts one at a time (serve) keep the default.
func (w *wtx) growWriteCache() error {
	if w.s.bulkCache {
		return nil
	}
	if _, err := w.tx.ExecContext(w.ctx, fmt.Sprintf("PRAGMA cache_size = -%d", bulkCacheKiB)); err != nil {
		return fmt.Errorf("page cache: %w", err)
	}
	w.s.bulkCache = true
	return nil
}

// derived is what createFact needs from a fact that does not depend on the
// database.
type derived struct {
	hash          int64
	content, tags string // indexed text (see text.IndexText)
	entities      []text.Entity
}

// deriveFact derives f's row parts; known, when not nil, is the caller's
// text.Extract(content, nil) (see PrepareFacts).
func deriveFact(f *holomem.Fact, known *text.Extraction) derived {
	var ents []text.Entity
	if known != nil && len(f.Tags) == 0 && known.Content == f.Content {
		ents = known.Entities
	} else {
		ents = extractEntities(f.Content, f.Tags)
	}
	return derived{
		hash:     rowcodec.ContentHash(f.Content),
		content:  indexText(f.Content),
		tags:     indexText(rowcodec.JoinTags(f.Tags)),
		entities: ents,
	}
}

// deriveFacts runs deriveFact over fs on up to GOMAXPROCS goroutines. It
// only reads the facts; known is as for PrepareFacts.
func deriveFacts(fs []*holomem.Fact, known []*text.Extraction) []derived {
	out := make([]derived, len(fs))
	workers := min(runtime.GOMAXPROCS(0), max(1, len(fs)/32))
	var wg sync.WaitGroup
	for w := range workers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := w; i < len(fs); i += workers {
				var k *text.Extraction
				if i < len(known) {
					k = known[i]
				}
				out[i] = deriveFact(fs[i], k)
			}
		}()
	}
	wg.Wait()
	return out
}

// createFact writes f, already through rowcodec.PrepareFact, with what
// deriveFact computed for it. Its full-text row waits in w until flushFTS.
func (w *wtx) createFact(f *holomem.Fact, d *derived) (bool, error) {
	hash := d.hash
	existing, err := w.existingFact(f, hash)
	if err != nil {
		return false, err
	}
	if existing != 0 {
		old, err := sqlstore.LoadFact(w, dialect, existing)
		if err != nil {
			return false, err
		}
		*f = *old
		return false, nil
	}

	anchorPath, anchorHash, modelID, emb, hrr := sqlstore.NewFactTimes(f, nanos(w.now))
	// The id is one past the largest ever given (migration 0005), never
	// max(id)+1: a forgotten fact's id must not name a new one.
	res, err := w.exec(`INSERT INTO facts (id, namespace, content, content_hash, category, tags, source, external_key,
		trust, retrieval_count, helpful_count, unhelpful_count, created_at, updated_at,
		anchor_path, anchor_hash, model_id, embedding, hrr)
		VALUES ((SELECT last + 1 FROM fact_ids WHERE only = 1), ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
		f.Namespace, f.Content, hash, f.Category, rowcodec.JoinTags(f.Tags), f.Source, rowcodec.NullString(f.ExternalKey),
		f.Trust, f.RetrievalCount, f.HelpfulCount, f.UnhelpfulCount, nanos(f.CreatedAt), nanos(f.UpdatedAt),
		anchorPath, anchorHash, modelID, emb, hrr)
	if err != nil {
		return false, err
	}
	if f.ID, err = res.LastInsertId(); err != nil {
		return false, err
	}
	f.SupersededBy = 0
	w.fts = append(w.fts, ftsRow{id: f.ID, content: d.content, tags: d.tags, scope: liveScope(f.Namespace)})
	w.link.noteOwn(f.ID, f.Namespace, d.content, d.tags)
	if f.Entities, err = w.linkEntities(f.ID, f.Namespace, d.entities); err != nil {
		return false, err
	}
	w.link.noteKeys(f.ID, d.entities) // for promoteTerm of later facts
	if w.dups != nil {
		w.dups.noteCreated(f, hash)
	}
	return true, nil
}

// existingFact returns the fact f duplicates, 0 when none: the one with
// its external key, or for a key-less fact the one with its content
// (ErrConflict when only the hash matches). A fact with an external key is
// identified by its key alone: two commits with the same message are two
// facts. CreateFacts answers from w.dups (see prefetchDups).
func (w *wtx) existingFact(f *holomem.Fact, hash int64) (int64, error) {
	if w.dups != nil {
		return w.dups.find(f, hash)
	}
	return sqlstore.ExistingFact(w, f, hash)
}

func defaultNamespace(ns string) string { return sqlstore.DefaultNamespace(ns) }
