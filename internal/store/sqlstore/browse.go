package sqlstore

import (
	"context"
	"fmt"
	"strings"
	"time"

	"github.com/holomem/holomem"
	"github.com/holomem/holomem/internal/leaf/rowcodec"
)

// browseColumn is the column of each browse order.
var browseColumn = map[holomem.BrowseOrder]string{
	holomem.BrowseUpdated:    "f.updated_at",
	holomem.BrowseEvent:      "f.created_at",
	holomem.BrowseTrust:      "f.trust",
	holomem.BrowseRetrievals: "f.retrieval_count",
	holomem.BrowseID:         "f.id",
}

// browseWhere returns the conditions of filter (without its cursor) over
// facts aliased f; ok is false when the filter can match nothing.
func browseWhere(d *Dialect, filter holomem.BrowseFilter) (where []string, args []any, ok bool) {
	eq := func(col string, v *string) {
		if v != nil {
			where, args = append(where, col+" = ?"), append(args, *v)
		}
	}
	eq("f.namespace", filter.Namespace)
	eq("f.category", filter.Category)
	eq("f.source", filter.Source)
	if filter.Tag != nil {
		tag := rowcodec.StoreTags([]string{*filter.Tag})
		if len(tag) == 0 {
			return nil, nil, false
		}
		where, args = append(where, d.Substr+"(' ' || f.tags || ' ', ?) > 0"), append(args, " "+tag[0]+" ")
	}
	if filter.MinTrust != nil {
		where, args = append(where, "f.trust >= ?"), append(args, *filter.MinTrust)
	}
	if filter.MaxTrust != nil {
		where, args = append(where, "f.trust <= ?"), append(args, *filter.MaxTrust)
	}
	span := func(col string, from, to time.Time) {
		if !from.IsZero() {
			where, args = append(where, col+" >= ?"), append(args, from.UnixNano())
		}
		if !to.IsZero() {
			where, args = append(where, col+" < ?"), append(args, to.UnixNano())
		}
	}
	span("f.created_at", filter.CreatedFrom, filter.CreatedTo)
	span("f.updated_at", filter.UpdatedFrom, filter.UpdatedTo)
	switch filter.Superseded {
	case holomem.SupersededHide:
		where = append(where, "f.superseded_by IS NULL")
	case holomem.SupersededOnly:
		where = append(where, "f.superseded_by IS NOT NULL")
	}
	return where, args, true
}

// BrowseFacts returns a page of facts in the filter's order; see
// [holomem.FactBrowser]. The page after a cursor is a range condition on
// (key, id), so page 1000 costs what page 1 does.
func (b *Base) BrowseFacts(ctx context.Context, filter holomem.BrowseFilter) ([]*holomem.Fact, error) {
	if err := filter.Validate(); err != nil {
		return nil, fmt.Errorf("browse facts: %w", err)
	}
	where, args, ok := browseWhere(b.Dialect, filter)
	if !ok {
		return nil, nil
	}
	col := browseColumn[filter.EffectiveOrder()]
	dir, cmp := "DESC", "<"
	if filter.Ascending {
		dir, cmp = "ASC", ">"
	}
	if c := filter.After; c != nil {
		var key any
		switch filter.EffectiveOrder() {
		case holomem.BrowseUpdated, holomem.BrowseEvent:
			key = c.Time.UnixNano()
		case holomem.BrowseTrust:
			key = c.Trust
		case holomem.BrowseRetrievals:
			key = c.Retrievals
		}
		if key == nil {
			where, args = append(where, "f.id "+cmp+" ?"), append(args, c.ID)
		} else {
			// A row value: the order's index is searched from it.
			where, args = append(where, "("+col+", f.id) "+cmp+" (?, ?)"), append(args, key, c.ID)
		}
	}
	limit := filter.Limit
	if limit == 0 {
		limit = holomem.DefaultLimit
	}
	q := "SELECT " + b.Dialect.FactColumns(false, false) + " FROM facts f" + whereClause(where) + " ORDER BY "
	if col != "f.id" {
		q += col + " " + dir + ", "
	}
	q += "f.id " + dir + " LIMIT ?"
	args = append(args, limit)
	var out []*holomem.Fact
	err := b.Read(ctx, nil, func(tx Tx) error {
		rows, err := tx.Query(q, args...)
		if err != nil {
			return err
		}
		defer rows.Close()
		for rows.Next() {
			f, err := ScanFact(rows)
			if err != nil {
				return err
			}
			out = append(out, f)
		}
		return rows.Err()
	})
	if err != nil {
		return nil, fmt.Errorf("browse facts: %w", err)
	}
	return out, nil
}

// CountFacts returns how many facts match filter; see [holomem.FactBrowser].
func (b *Base) CountFacts(ctx context.Context, filter holomem.BrowseFilter) (int, error) {
	if err := filter.Validate(); err != nil {
		return 0, fmt.Errorf("count facts: %w", err)
	}
	where, args, ok := browseWhere(b.Dialect, filter)
	if !ok {
		return 0, nil
	}
	var n int
	err := b.ReadOne(ctx, func(tx Tx) error {
		return tx.QueryRow("SELECT count(*) FROM facts f"+whereClause(where), args...).Scan(&n)
	})
	if err != nil {
		return 0, fmt.Errorf("count facts: %w", err)
	}
	return n, nil
}

func whereClause(where []string) string {
	if len(where) == 0 {
		return ""
	}
	return " WHERE " + strings.Join(where, " AND ")
}
