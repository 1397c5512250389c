package sqlstore

import (
	"context"
	"fmt"
	"strings"
	"time"

	"github.com/holomem/holomem"
)

// Base holds the read methods of holomem.Store that both SQL stores
// answer with the same statements; each store embeds it and gives it its
// dialect and its way of reading.
type Base struct {
	Dialect *Dialect
	// Read runs fn in one read-only snapshot. prepare lists statements
	// fn runs often enough that the store may keep them prepared.
	Read func(ctx context.Context, prepare []string, fn func(Tx) error) error
	// ReadOne runs fn where its statements need not share a snapshot.
	ReadOne func(ctx context.Context, fn func(Tx) error) error
	// Write runs fn in one write transaction and commits it.
	Write func(ctx context.Context, fn func(WriteTx) error) error
	// Now is the store's clock.
	Now func() time.Time
	// Path names the store in Stats; Size gives Stats' SizeBytes.
	Path string
	Size func(tx Tx) (int64, error)
}

// FindFactByID returns the fact with its entities and model id, without
// the embedding and HRR vectors (use FindFacts with IDs for those).
// Returns ErrNotFound if no fact has that id.
func (b *Base) FindFactByID(ctx context.Context, id int64) (*holomem.Fact, error) {
	var f *holomem.Fact
	err := b.ReadOne(ctx, func(tx Tx) error {
		var err error
		f, err = LoadFact(tx, b.Dialect, id)
		return err
	})
	if err != nil {
		return nil, fmt.Errorf("find fact: %w", err)
	}
	return f, nil
}

// FindFactByExternalKey returns ErrNotFound if the namespace has no such key.
func (b *Base) FindFactByExternalKey(ctx context.Context, namespace, key string) (*holomem.Fact, error) {
	var f *holomem.Fact
	err := b.Read(ctx, nil, func(tx Tx) error {
		var err error
		f, err = FactByKey(tx, b.Dialect, DefaultNamespace(namespace), strings.TrimSpace(key))
		return err
	})
	if err != nil {
		return nil, fmt.Errorf("find fact: %w", err)
	}
	return f, nil
}

// FindFacts returns the facts matching the filter, ordered by id, and the
// total number that match ignoring Offset and Limit. Both come from one
// snapshot of the database.
func (b *Base) FindFacts(ctx context.Context, filter holomem.FactFilter) ([]*holomem.Fact, int, error) {
	if filter.Offset < 0 || filter.Limit < 0 {
		return nil, 0, fmt.Errorf("find facts: %w: negative offset or limit", holomem.ErrInvalid)
	}
	q := b.Dialect.FactsQuery(filter)
	if q.None {
		return nil, 0, nil
	}
	var prepare []string
	if filter.Lean {
		prepare = []string{q.Page} // recall's candidate load: the same query every time
	}
	var (
		out   []*holomem.Fact
		total int
	)
	err := b.Read(ctx, prepare, func(tx Tx) error {
		var err error
		out, total, err = FindFacts(tx, b.Dialect, filter, q)
		return err
	})
	if err != nil {
		return nil, 0, fmt.Errorf("find facts: %w", err)
	}
	return out, total, nil
}
