package holomem

import (
	"fmt"
	"math"
	"time"
)

// BrowseOrder names the order of a [FactBrowser] listing. Every order
// breaks ties by id in the same direction, so a page boundary is one
// (key, id) pair and keyset paging never skips or repeats a fact.
type BrowseOrder string

// The orders a browse listing can take.
const (
	// BrowseUpdated orders by UpdatedAt (the last content change).
	BrowseUpdated BrowseOrder = "updated"
	// BrowseEvent orders by CreatedAt: the fact's event time, which
	// imports set to the record's own date.
	BrowseEvent BrowseOrder = "event"
	// BrowseTrust orders by Trust.
	BrowseTrust BrowseOrder = "trust"
	// BrowseRetrievals orders by RetrievalCount.
	BrowseRetrievals BrowseOrder = "retrievals"
	// BrowseID orders by id (creation order in this store).
	BrowseID BrowseOrder = "id"
)

// BrowseOrders lists the orders in the order a form offers them.
var BrowseOrders = []BrowseOrder{BrowseUpdated, BrowseEvent, BrowseTrust, BrowseRetrievals, BrowseID}

// BrowseCursor is where a browse page ended: the last fact's sort key and
// id. Only the field of the filter's order is read.
type BrowseCursor struct {
	ID         int64
	Time       time.Time
	Trust      float64
	Retrievals int64
}

// CursorOf returns the cursor that continues a listing in order o after f.
func (o BrowseOrder) CursorOf(f *Fact) BrowseCursor {
	c := BrowseCursor{ID: f.ID}
	switch o {
	case BrowseUpdated:
		c.Time = f.UpdatedAt
	case BrowseEvent:
		c.Time = f.CreatedAt
	case BrowseTrust:
		c.Trust = f.Trust
	case BrowseRetrievals:
		c.Retrievals = f.RetrievalCount
	}
	return c
}

// SupersededMode says which facts a browse listing shows by whether
// another fact superseded them.
type SupersededMode string

// The superseded modes; the zero value hides superseded facts, as recall does.
const (
	SupersededHide SupersededMode = ""
	SupersededShow SupersededMode = "include"
	SupersededOnly SupersededMode = "only"
)

// BrowseFilter selects and orders facts for a curator's listing. Nil and
// zero fields do not filter. Times are half-open ranges [From, To).
type BrowseFilter struct {
	Namespace, Category, Tag, Source *string
	// MinTrust and MaxTrust bound Trust, both inclusive.
	MinTrust, MaxTrust *float64
	// CreatedFrom/CreatedTo bound CreatedAt (the event time);
	// UpdatedFrom/UpdatedTo bound UpdatedAt. Zero means open.
	CreatedFrom, CreatedTo, UpdatedFrom, UpdatedTo time.Time
	Superseded                                     SupersededMode
	// Order is the sort key, BrowseUpdated when empty; Ascending flips
	// the default newest/highest-first direction.
	Order     BrowseOrder
	Ascending bool
	// After continues a listing after the fact it names (keyset paging).
	After *BrowseCursor
	// Limit is the page size, 1..MaxLimit; 0 means DefaultLimit.
	Limit int
}

// Validate checks the filter's order, trust range and limit.
func (f BrowseFilter) Validate() error {
	switch f.Order {
	case "", BrowseUpdated, BrowseEvent, BrowseTrust, BrowseRetrievals, BrowseID:
	default:
		return fmt.Errorf("%w: unknown order %q", ErrInvalid, f.Order)
	}
	switch f.Superseded {
	case SupersededHide, SupersededShow, SupersededOnly:
	default:
		return fmt.Errorf("%w: unknown superseded mode %q", ErrInvalid, f.Superseded)
	}
	for _, t := range []*float64{f.MinTrust, f.MaxTrust} {
		if t != nil && (math.IsNaN(*t) || *t < 0 || *t > 1) {
			return fmt.Errorf("%w: trust bound %v is outside 0..1", ErrInvalid, *t)
		}
	}
	if f.Limit < 0 || f.Limit > MaxLimit {
		return fmt.Errorf("%w: limit %d is outside 0..%d", ErrInvalid, f.Limit, MaxLimit)
	}
	return nil
}

// EffectiveOrder is Order with the default applied.
func (f BrowseFilter) EffectiveOrder() BrowseOrder {
	if f.Order == "" {
		return BrowseUpdated
	}
	return f.Order
}
