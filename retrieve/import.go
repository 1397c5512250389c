package retrieve

import (
	"context"
	"errors"
	"fmt"
	"runtime"
	"sync"
	"sync/atomic"

	"github.com/holomem/holomem"
	"github.com/holomem/holomem/hrr"
	"github.com/holomem/holomem/text"
)

// Import stores many facts in one transaction without write-time hygiene
// (bulk imports): HRR vectors are derived here, embeddings are computed in
// batches when a model is configured (a failure leaves them for
// `backfill`). It returns which facts were new; existing ones (same content
// or external key) are loaded into their Fact. Imports of many batches
// should use [Memory.ImportBatches], which prepares one batch while the one
// before is written.
func (m *Memory) Import(ctx context.Context, facts []*holomem.Fact) ([]bool, error) {
	for _, f := range facts {
		if err := allow(ctx, f.Namespace, true); err != nil {
			return nil, err
		}
	}
	write, err := m.prepareImport(ctx, facts)
	if err != nil {
		return nil, err
	}
	return m.writeImport(ctx, facts, write)
}

// importWrite stores a prepared batch: CreateFacts or a prepared write.
type importWrite func(ctx context.Context) ([]bool, error)

// prepareImport is the part of Import that does not write: it validates
// the facts, derives their HRR vectors and what the store derives before
// its write, and returns the write. Only the alias map (see entityKeys)
// comes from the database, so a batch prepared before the one ahead of it
// is written gets the same vectors unless that one declares aliases (see
// batchImport.Add).
func (m *Memory) prepareImport(ctx context.Context, facts []*holomem.Fact) (importWrite, error) {
	for _, f := range facts {
		f.Normalize()
		if err := f.Validate(); err != nil {
			return nil, err
		}
	}
	known := m.encodeAll(ctx, facts)
	if p, ok := holomem.As[holomem.FactPreparer[*text.Extraction]](m.store); ok {
		w, err := p.PrepareFacts(facts, known)
		if err != nil {
			return nil, err
		}
		return w, nil
	}
	return func(ctx context.Context) ([]bool, error) { return m.store.CreateFacts(ctx, facts) }, nil
}

// writeImport runs a prepared write and updates what derives from the
// stored facts: the alias map, the HRR cache and, with a model, the
// embeddings of the new facts.
func (m *Memory) writeImport(ctx context.Context, facts []*holomem.Fact, write importWrite) ([]bool, error) {
	created, err := write(ctx)
	if err != nil {
		return nil, err
	}
	for i, f := range facts {
		m.forgetAliases(f.Namespace, f.Content)
		if created[i] {
			m.hrr.put(f.Namespace, f.ID, f.HRR)
		}
	}
	if m.emb == nil {
		return created, nil
	}
	return created, m.embedImported(ctx, facts, created)
}

// embedImported stores and indexes the vectors of the created facts. A
// failing model is logged (backfill computes the vectors later); a failing
// store is an error.
func (m *Memory) embedImported(ctx context.Context, facts []*holomem.Fact, created []bool) error {
	var todo []*holomem.Fact
	for i, f := range facts {
		switch {
		case !created[i]:
		case len(f.Embedding) == m.emb.Dim() && f.ModelID == m.emb.ModelID():
			// The caller brought this model's vector (a JSONL export):
			// the store kept it, so only the index needs it.
			m.sem.Upsert(f.Namespace, f.ID, f.Embedding)
		default:
			todo = append(todo, f)
		}
	}
	for start := 0; start < len(todo); start += embedBatch {
		batch := todo[start:min(start+embedBatch, len(todo))]
		texts := make([]string, len(batch))
		for i, f := range batch {
			texts[i] = stripForEmbedding(f.Content)
		}
		vs, err := m.emb.Embed(ctx, texts)
		if err != nil {
			if ctx.Err() != nil {
				return ctx.Err()
			}
			m.log.Warn("embed imported facts; run `holomem backfill` later", "err", err)
			return nil
		}
		vecs := make(map[int64][]float32, len(batch))
		for i, f := range batch {
			vecs[f.ID] = vs[i]
		}
		if err := m.store.SetEmbeddings(ctx, m.emb.ModelID(), vecs); err != nil {
			return fmt.Errorf("store embeddings: %w", err)
		}
		for i, f := range batch {
			f.ModelID, f.Embedding = m.emb.ModelID(), vs[i]
			m.sem.Upsert(f.Namespace, f.ID, vs[i])
		}
	}
	return nil
}

// encodeAll derives the HRR vectors facts lack, on up to runtime.NumCPU()
// goroutines: encoding is a third of a bulk import's CPU time and does not
// depend on the store, so it need not wait for the single writer. Each
// fact's vector depends only on the fact, so the result does not depend on
// scheduling. It returns the entity extraction each vector used (nil
// where it encoded none), which the store's derive step reuses instead of
// extracting again.
func (m *Memory) encodeAll(ctx context.Context, facts []*holomem.Fact) []*text.Extraction {
	known := make([]*text.Extraction, len(facts))
	if m.opts.DisableHRR {
		return known
	}
	workers := min(runtime.NumCPU(), 4, max(1, len(facts)/64))
	var wg sync.WaitGroup
	for w := range workers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := w; i < len(facts); i += workers {
				if f := facts[i]; len(f.HRR) == 0 {
					ents := text.Extract(f.Content, nil)
					f.HRR = hrr.EncodeFactCompact(text.Tokens(f.Content), m.entityKeysOf(ctx, f.Namespace, ents))
					known[i] = &text.Extraction{Content: f.Content, Entities: ents}
				}
			}
		}()
	}
	wg.Wait()
	return known
}

// ImportBatches starts a bulk import fed batch by batch ([Memory.Import]
// for each batch, in order): Add prepares a batch on the caller's
// goroutine (validation, HRR vectors and the store's derived text, on all
// cores) while a writer goroutine stores the batch before it, so the
// single writer of the store no longer waits for preparation. done, when
// not nil, is called with each batch's facts (ids and existing facts
// filled in) and which were new, in order, on the caller's goroutine from
// Add or Wait.
func (m *Memory) ImportBatches(ctx context.Context, done func(facts []*holomem.Fact, created []bool)) holomem.ImportBatches {
	return &batchImport{m: m, ctx: ctx, done: done}
}

// maxQueued is how many prepared batches wait for the writer: one is
// enough to keep it busy while the caller prepares the next.
const maxQueued = 1

// errSkipped marks the batches after a failed one: they are not written.
var errSkipped = errors.New("import: skipped after an earlier error")

// batchImport is [Memory.ImportBatches]' pipeline: the caller prepares,
// one goroutine writes (queue), results come back in order (results).
type batchImport struct {
	m    *Memory
	ctx  context.Context
	done func([]*holomem.Fact, []bool)

	queue   chan *importBatch // prepared batches, in order
	results chan *importBatch // written (or skipped) batches, in order
	failed  atomic.Bool       // the writer skips batches once one failed
	// inFlight counts batches queued or being written; aliasInFlight is
	// true while one of them declares aliases.
	inFlight      int
	aliasInFlight bool
	err           error
	waited        bool
}

// importBatch is one batch through the pipeline.
type importBatch struct {
	facts   []*holomem.Fact
	write   importWrite
	aliases bool // some fact declares an alias
	created []bool
	err     error
}

// Add implements [holomem.ImportBatches].
func (b *batchImport) Add(facts []*holomem.Fact) error {
	if b.err != nil {
		return b.err
	}
	if b.waited {
		return fmt.Errorf("%w: import batch added after Wait", holomem.ErrInvalid)
	}
	if err := b.ctx.Err(); err != nil {
		return b.fail(err)
	}
	b.collect(false)
	if b.aliasInFlight {
		// A batch ahead declares aliases: its write changes the alias map
		// this batch's vectors resolve entities through, as in a
		// sequential import.
		b.drain()
	}
	if b.err != nil {
		return b.fail(b.err)
	}
	bt := &importBatch{facts: facts}
	var err error
	if bt.write, err = b.m.prepareImport(b.ctx, facts); err != nil {
		return b.fail(err)
	}
	for _, f := range facts {
		if declaresAlias(f.Content) {
			bt.aliases = true
			break
		}
	}
	for b.inFlight > maxQueued {
		b.collect(true)
	}
	if b.err != nil {
		return b.fail(b.err)
	}
	if b.queue == nil {
		b.queue = make(chan *importBatch, maxQueued)
		b.results = make(chan *importBatch, maxQueued+2)
		go b.writer()
	}
	b.inFlight++
	b.aliasInFlight = b.aliasInFlight || bt.aliases
	b.queue <- bt
	return nil
}

// Wait implements [holomem.ImportBatches].
func (b *batchImport) Wait() error {
	if !b.waited {
		b.waited = true
		b.drain()
		if b.queue != nil {
			close(b.queue)
		}
	}
	return b.err
}

// fail ends the import with err: the batches in flight are still stored
// (and handed to done), as they would be by Import one batch at a time,
// then the writer stops. It returns the import's first error: one of
// those batches' or err.
func (b *batchImport) fail(err error) error {
	b.Wait()
	if b.err == nil {
		b.err = err
	}
	return b.err
}

// drain waits for every batch in flight.
func (b *batchImport) drain() {
	for b.inFlight > 0 {
		b.collect(true)
	}
}

// collect takes the written batches, waiting for one when block is set,
// and hands them to done.
func (b *batchImport) collect(block bool) {
	for b.inFlight > 0 {
		var bt *importBatch
		if block {
			bt = <-b.results
			block = false
		} else {
			select {
			case bt = <-b.results:
			default:
				return
			}
		}
		b.inFlight--
		if b.inFlight == 0 {
			b.aliasInFlight = false
		}
		switch {
		case bt.err != nil:
			if b.err == nil {
				b.err = bt.err
			}
		case b.err == nil && b.done != nil:
			b.done(bt.facts, bt.created)
		}
	}
}

// writer stores the queued batches in order until the queue closes; after
// a failure (or with ctx done) it only passes them on.
func (b *batchImport) writer() {
	for bt := range b.queue {
		switch {
		case b.failed.Load():
			bt.err = errSkipped
		case b.ctx.Err() != nil:
			bt.err = b.ctx.Err()
		default:
			bt.created, bt.err = b.m.writeImport(b.ctx, bt.facts, bt.write)
		}
		if bt.err != nil {
			b.failed.Store(true)
		}
		b.results <- bt
	}
}
