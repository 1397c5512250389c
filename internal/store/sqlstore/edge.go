package sqlstore

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"

	"github.com/holomem/holomem"
)

// FactRef is what edge checks need to know about an endpoint.
type FactRef struct {
	Namespace    string
	SupersededBy int64
}

// EdgeRefs caches the facts a write transaction's edges touch (a graph
// build links the same facts many times).
type EdgeRefs map[int64]FactRef

// Ref returns what edge checks need about fact id; ErrNotFound. The row
// is read with d.KeyShare (where a lock, as a foreign key takes, keeps a
// concurrent delete from slipping in between check and insert).
func (refs *EdgeRefs) Ref(tx Tx, d *Dialect, id int64) (FactRef, error) {
	if r, ok := (*refs)[id]; ok {
		return r, nil
	}
	var r FactRef
	var sup *int64
	err := tx.QueryRow("SELECT namespace, superseded_by FROM facts WHERE id = ?"+d.KeyShare, id).Scan(&r.Namespace, &sup)
	if errors.Is(err, ErrNoRows) {
		return r, fmt.Errorf("fact %d: %w", id, holomem.ErrNotFound)
	}
	if err != nil {
		return r, err
	}
	if sup != nil {
		r.SupersededBy = *sup
	}
	if *refs == nil {
		*refs = make(EdgeRefs)
	}
	(*refs)[id] = r
	return r, nil
}

// CreateEdge stores e (or updates the weight of the existing edge,
// WriteTx.InsertEdge) and fills its defaults: Origin [holomem.OriginUser],
// CreatedAt now. A supersedes edge also sets To's superseded_by, so the
// column always mirrors the edges.
func CreateEdge(w WriteTx, d *Dialect, e *holomem.Edge) (bool, error) {
	if e == nil {
		return false, fmt.Errorf("%w: nil edge", holomem.ErrInvalid)
	}
	e.Origin = strings.TrimSpace(e.Origin)
	if e.Origin == "" {
		e.Origin = holomem.OriginUser
	}
	if err := e.Validate(); err != nil {
		return false, err
	}
	refs := w.Refs()
	from, err := refs.Ref(w, d, e.From)
	if err != nil {
		return false, err
	}
	to, err := refs.Ref(w, d, e.To)
	if err != nil {
		return false, err
	}
	if from.Namespace != to.Namespace {
		return false, fmt.Errorf("%w: edge %d -> %d crosses namespaces (%q, %q)", holomem.ErrInvalid, e.From, e.To, from.Namespace, to.Namespace)
	}
	if e.Kind == holomem.EdgeSupersedes && from.SupersededBy == e.To {
		return false, fmt.Errorf("%w: fact %d already supersedes fact %d", holomem.ErrInvalid, e.To, e.From)
	}
	createdAt := e.CreatedAt.UnixNano()
	if e.CreatedAt.IsZero() {
		createdAt = w.Now()
	}
	created, err := w.InsertEdge(e, createdAt)
	if err != nil {
		return false, err
	}
	w.Touch(from.Namespace)
	if e.Kind == holomem.EdgeSupersedes {
		if _, err := w.Exec("UPDATE facts SET superseded_by = ? WHERE id = ?", e.From, e.To); err != nil {
			return false, err
		}
		(*refs)[e.To] = FactRef{Namespace: to.Namespace, SupersededBy: e.From}
	}
	return created, nil
}

// CreateEdge stores an edge, filling Origin (default [holomem.OriginUser])
// and CreatedAt (now, unless set). When the edge already exists its weight
// is updated, e gets the stored origin and time, and created is false.
// A supersedes edge also hides its To fact, as Supersede does.
// Returns ErrInvalid (bad edge, endpoints in different namespaces) or
// ErrNotFound for unknown facts.
func (b *Base) CreateEdge(ctx context.Context, e *holomem.Edge) (bool, error) {
	var created bool
	err := b.Write(ctx, func(w WriteTx) error {
		var err error
		created, err = CreateEdge(w, b.Dialect, e)
		return err
	})
	if err != nil {
		return false, fmt.Errorf("create edge: %w", err)
	}
	return created, nil
}

// CreateEdges stores many edges in one transaction (imports, graph build)
// and returns how many were new. Nothing is stored when one edge fails; the
// error names its index.
func (b *Base) CreateEdges(ctx context.Context, es []*holomem.Edge) (int, error) {
	n := 0
	err := b.Write(ctx, func(w WriteTx) error {
		n = 0
		for i, e := range es {
			if i%256 == 0 {
				if err := ctx.Err(); err != nil {
					return err
				}
			}
			c, err := CreateEdge(w, b.Dialect, e)
			if err != nil {
				return fmt.Errorf("edge %d: %w", i, err)
			}
			if c {
				n++
			}
		}
		return nil
	})
	if err != nil {
		return 0, fmt.Errorf("create edges: %w", err)
	}
	return n, nil
}

// DeleteEdge removes one edge. Removing a supersedes edge makes its To fact
// visible again. Returns ErrNotFound.
func (b *Base) DeleteEdge(ctx context.Context, from, to int64, kind holomem.EdgeKind) error {
	err := b.Write(ctx, func(w WriteTx) error {
		n, err := w.Exec("DELETE FROM edges WHERE src = ? AND dst = ? AND kind = ?", from, to, string(kind))
		if err != nil {
			return err
		}
		if n == 0 {
			return fmt.Errorf("edge %d -> %d (%s): %w", from, to, kind, holomem.ErrNotFound)
		}
		w.Touch("")
		if kind == holomem.EdgeSupersedes {
			_, err = w.Exec("UPDATE facts SET superseded_by = NULL WHERE id = ? AND superseded_by = ?", to, from)
		}
		return err
	})
	if err != nil {
		return fmt.Errorf("delete edge: %w", err)
	}
	return nil
}

// DeleteEdges removes the edges matching filter and returns how many. Every
// filter field but Limit applies; an empty filter, or one with a Limit,
// returns ErrInvalid instead of deleting everything.
func (b *Base) DeleteEdges(ctx context.Context, filter holomem.EdgeFilter) (int, error) {
	if filter.Limit != 0 {
		return 0, fmt.Errorf("delete edges: %w: a limit is not supported", holomem.ErrInvalid)
	}
	for _, k := range filter.Kinds {
		if err := k.Validate(); err != nil {
			return 0, fmt.Errorf("delete edges: %w", err)
		}
	}
	where, args := EdgeWhere(filter)
	if len(where) == 0 {
		return 0, fmt.Errorf("delete edges: %w: an empty filter would delete every edge", holomem.ErrInvalid)
	}
	var n int64
	err := b.Write(ctx, func(w WriteTx) error {
		var err error
		if n, err = w.Exec("DELETE FROM edges AS e WHERE "+strings.Join(where, " AND "), args...); err != nil {
			return err
		}
		if n > 0 {
			w.Touch(filter.Namespace)
		}
		if n > 0 && (len(filter.Kinds) == 0 || slices.Contains(filter.Kinds, holomem.EdgeSupersedes)) {
			// superseded_by mirrors the supersedes edges.
			_, err = w.Exec(`UPDATE facts SET superseded_by = NULL WHERE superseded_by IS NOT NULL
				AND NOT EXISTS (SELECT 1 FROM edges WHERE src = facts.superseded_by AND dst = facts.id AND kind = ?)`,
				string(holomem.EdgeSupersedes))
		}
		return err
	})
	if err != nil {
		return 0, fmt.Errorf("delete edges: %w", err)
	}
	return int(n), nil
}

// EdgeWhere returns the SQL conditions (over edges aliased e) for every
// set field of filter but Limit, and their values.
func EdgeWhere(filter holomem.EdgeFilter) ([]string, []any) {
	var where []string
	var args []any
	if filter.FactID != 0 {
		where = append(where, "(e.src = ? OR e.dst = ?)")
		args = append(args, filter.FactID, filter.FactID)
	}
	if filter.From != 0 {
		where, args = append(where, "e.src = ?"), append(args, filter.From)
	}
	if filter.To != 0 {
		where, args = append(where, "e.dst = ?"), append(args, filter.To)
	}
	if len(filter.Kinds) > 0 {
		ph := make([]string, len(filter.Kinds))
		for i, k := range filter.Kinds {
			ph[i] = "?"
			args = append(args, string(k))
		}
		where = append(where, "e.kind IN ("+strings.Join(ph, ", ")+")")
	}
	if filter.Origin != "" {
		where, args = append(where, "e.origin = ?"), append(args, filter.Origin)
	}
	if filter.Namespace != "" {
		// Edges never cross namespaces, so the source's namespace is enough.
		where = append(where, "e.src IN (SELECT id FROM facts WHERE namespace = ?)")
		args = append(args, filter.Namespace)
	}
	return where, args
}

// FindEdges returns matching edges ordered by (from, to, kind). Limit 0
// means all.
func (b *Base) FindEdges(ctx context.Context, filter holomem.EdgeFilter) ([]*holomem.Edge, error) {
	if filter.Limit < 0 {
		return nil, fmt.Errorf("find edges: %w: negative limit", holomem.ErrInvalid)
	}
	where, args := EdgeWhere(filter)
	q := "SELECT e.src, e.dst, e.kind, e.weight, e.origin, e.created_at FROM edges e"
	if len(where) > 0 {
		q += " WHERE " + strings.Join(where, " AND ")
	}
	q += " ORDER BY e.src, e.dst, e.kind" + b.Dialect.Collate
	if filter.Limit > 0 {
		q += " LIMIT ?"
		args = append(args, int64(filter.Limit))
	}
	var out []*holomem.Edge
	err := b.Read(ctx, nil, func(tx Tx) error {
		rows, err := tx.Query(q, args...)
		if err != nil {
			return err
		}
		defer rows.Close()
		for rows.Next() {
			var e holomem.Edge
			var kind string
			var createdAt int64
			if err := rows.Scan(&e.From, &e.To, &kind, &e.Weight, &e.Origin, &createdAt); err != nil {
				return err
			}
			e.Kind, e.CreatedAt = holomem.EdgeKind(kind), FromNanos(createdAt)
			out = append(out, &e)
		}
		return rows.Err()
	})
	if err != nil {
		return nil, fmt.Errorf("find edges: %w", err)
	}
	return out, nil
}
