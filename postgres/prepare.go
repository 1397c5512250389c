package postgres

import (
	"context"
	"fmt"
	"runtime"
	"slices"
	"sync"

	"github.com/holomem/holomem"
	"github.com/holomem/holomem/internal/leaf/rowcodec"
	"github.com/holomem/holomem/text"
)

// prepared is what a bulk write derives from its facts without the
// database: content hashes and, when prepared in full, the text of each
// full-text row and the entities (see createFactsBulkPrepared). Without
// them the write derives those of the facts it inserts, and no more: a
// batch of duplicates (an import run again) extracts nothing.
type prepared struct {
	contents []string // the contents derived from, to check fs did not change
	hashes   []int64
	fts      []string        // nil: not prepared
	ents     [][]text.Entity // nil: not prepared
}

// ftsText is the full-text row of fs[i] == f.
func (p *prepared) ftsText(i int, f *holomem.Fact) string {
	if p.fts != nil {
		return p.fts[i]
	}
	return tsvectorText(f.Content, rowcodec.JoinTags(f.Tags))
}

// matches reports whether p was derived from fs as they are now (the
// write runs after PrepareFacts; a retried transaction reuses p).
func (p *prepared) matches(fs []*holomem.Fact) bool {
	if len(p.contents) != len(fs) {
		return false
	}
	for i, f := range fs {
		if f.Content != p.contents[i] {
			return false
		}
	}
	return true
}

// prepareFacts validates and normalises fs (rowcodec.PrepareFact) and
// derives their hashes and, when full, the rest of prepared, on up to
// GOMAXPROCS goroutines. known[i],
// when set, is the caller's text.Extract(content, nil) for fs[i]: a fact
// without tags whose content it matches takes its entities from there.
func prepareFacts(fs []*holomem.Fact, known []*text.Extraction, full bool) (*prepared, error) {
	for i, f := range fs {
		if err := rowcodec.PrepareFact(f); err != nil {
			return nil, fmt.Errorf("fact %d: %w", i, err)
		}
	}
	p := &prepared{
		contents: make([]string, len(fs)),
		hashes:   make([]int64, len(fs)),
	}
	if !full {
		for i, f := range fs {
			p.contents[i], p.hashes[i] = f.Content, rowcodec.ContentHash(f.Content)
		}
		return p, nil
	}
	p.fts, p.ents = make([]string, len(fs)), make([][]text.Entity, len(fs))
	workers := min(runtime.GOMAXPROCS(0), max(1, len(fs)/32))
	var wg sync.WaitGroup
	for w := range workers {
		wg.Go(func() {
			for i := w; i < len(fs); i += workers {
				f := fs[i]
				p.contents[i] = f.Content
				p.hashes[i] = rowcodec.ContentHash(f.Content)
				p.fts[i] = tsvectorText(f.Content, rowcodec.JoinTags(f.Tags))
				if i < len(known) && known[i] != nil && len(f.Tags) == 0 && known[i].Content == f.Content {
					p.ents[i] = slices.Clip(known[i].Entities)
				} else {
					p.ents[i] = text.Extract(f.Content, f.Tags)
				}
			}
		})
	}
	wg.Wait()
	return p, nil
}

// PrepareFacts implements [holomem.FactPreparer]: CreateFacts in two
// steps. It validates fs and derives what needs no database (content
// hashes, the full-text rows' text, entity extraction) on all cores now,
// and returns the write, which stores them in one transaction with
// CreateFacts' set-based statements. A bulk import prepares the next
// batch while the write of one runs (retrieve.Memory.ImportBatches). The
// write must run once, and fs must not change in between. known, when not
// nil, holds a caller's text.Extract(content, nil) per fact (nil where it
// has none), reused for a fact without tags whose content is unchanged.
func (s *Store) PrepareFacts(fs []*holomem.Fact, known []*text.Extraction) (write func(context.Context) ([]bool, error), err error) {
	p, err := prepareFacts(fs, known, true)
	if err != nil {
		return nil, fmt.Errorf("create facts: %w", err)
	}
	return func(ctx context.Context) ([]bool, error) {
		return s.writeBatch(ctx, func(w *wtx) ([]bool, error) { return w.createFactsBulkPrepared(fs, p) })
	}, nil
}
