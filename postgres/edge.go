package postgres

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"

	"github.com/jackc/pgx/v5"

	"github.com/holomem/holomem"
)

// factRef is what edge checks need to know about an endpoint.
type factRef struct {
	namespace    string
	supersededBy int64
}

// factRef returns what edge checks need about fact id, cached for the rest
// of the transaction. The row is locked (KEY SHARE, as the foreign key
// would) so a concurrent delete cannot slip in between check and insert.
func (w *wtx) factRef(id int64) (factRef, error) {
	if r, ok := w.refs[id]; ok {
		return r, nil
	}
	var r factRef
	var sup *int64
	err := w.queryRow("SELECT namespace, superseded_by FROM facts WHERE id = $1 FOR KEY SHARE", id).Scan(&r.namespace, &sup)
	if errors.Is(err, pgx.ErrNoRows) {
		return r, fmt.Errorf("fact %d: %w", id, holomem.ErrNotFound)
	}
	if err != nil {
		return r, err
	}
	if sup != nil {
		r.supersededBy = *sup
	}
	if w.refs == nil {
		w.refs = make(map[int64]factRef)
	}
	w.refs[id] = r
	return r, nil
}

// createEdge stores e (or updates the weight of the existing edge) and
// fills its defaults. A supersedes edge also sets To's superseded_by.
func (w *wtx) createEdge(e *holomem.Edge) (bool, error) {
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
	from, err := w.factRef(e.From)
	if err != nil {
		return false, err
	}
	to, err := w.factRef(e.To)
	if err != nil {
		return false, err
	}
	if from.namespace != to.namespace {
		return false, fmt.Errorf("%w: edge %d -> %d crosses namespaces (%q, %q)", holomem.ErrInvalid, e.From, e.To, from.namespace, to.namespace)
	}
	if e.Kind == holomem.EdgeSupersedes && from.supersededBy == e.To {
		return false, fmt.Errorf("%w: fact %d already supersedes fact %d", holomem.ErrInvalid, e.To, e.From)
	}
	createdAt := e.CreatedAt
	if createdAt.IsZero() {
		createdAt = w.now
	}
	// One statement inserts or updates the weight; xmax = 0 only on a row
	// this statement inserted.
	var origin string
	var at int64
	var created bool
	err = w.queryRow(`INSERT INTO edges (src, dst, kind, weight, origin, created_at) VALUES ($1, $2, $3, $4, $5, $6)
		ON CONFLICT (src, dst, kind) DO UPDATE SET weight = excluded.weight
		RETURNING origin, created_at, (xmax = 0)`,
		e.From, e.To, string(e.Kind), e.Weight, e.Origin, nanos(createdAt)).Scan(&origin, &at, &created)
	if err != nil {
		return false, err
	}
	e.Origin, e.CreatedAt = origin, fromNanos(at)
	w.touch(from.namespace)
	if e.Kind == holomem.EdgeSupersedes {
		if _, err := w.exec("UPDATE facts SET superseded_by = $1 WHERE id = $2", e.From, e.To); err != nil {
			return false, err
		}
		w.refs[e.To] = factRef{namespace: to.namespace, supersededBy: e.From}
	}
	return created, nil
}

// CreateEdge stores an edge; see [holomem.Store]. When the edge already
// exists its weight is updated, e gets the stored origin and time, and
// created is false.
func (s *Store) CreateEdge(ctx context.Context, e *holomem.Edge) (bool, error) {
	var created bool
	err := s.update(ctx, func(w *wtx) error {
		var err error
		created, err = w.createEdge(e)
		return err
	})
	if err != nil {
		return false, fmt.Errorf("create edge: %w", err)
	}
	return created, nil
}

// CreateEdges stores many edges in one transaction and returns how many
// were new. Nothing is stored when one edge fails; the error names its index.
func (s *Store) CreateEdges(ctx context.Context, es []*holomem.Edge) (int, error) {
	n := 0
	err := s.update(ctx, func(w *wtx) error {
		n = 0
		for i, e := range es {
			if i%256 == 0 {
				if err := ctx.Err(); err != nil {
					return err
				}
			}
			c, err := w.createEdge(e)
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
func (s *Store) DeleteEdge(ctx context.Context, from, to int64, kind holomem.EdgeKind) error {
	err := s.update(ctx, func(w *wtx) error {
		tag, err := w.exec("DELETE FROM edges WHERE src = $1 AND dst = $2 AND kind = $3", from, to, string(kind))
		if err != nil {
			return err
		}
		if tag.RowsAffected() == 0 {
			return fmt.Errorf("edge %d -> %d (%s): %w", from, to, kind, holomem.ErrNotFound)
		}
		w.touch("")
		if kind == holomem.EdgeSupersedes {
			_, err = w.exec("UPDATE facts SET superseded_by = NULL WHERE id = $1 AND superseded_by = $2", to, from)
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
func (s *Store) DeleteEdges(ctx context.Context, filter holomem.EdgeFilter) (int, error) {
	if filter.Limit != 0 {
		return 0, fmt.Errorf("delete edges: %w: a limit is not supported", holomem.ErrInvalid)
	}
	for _, k := range filter.Kinds {
		if err := k.Validate(); err != nil {
			return 0, fmt.Errorf("delete edges: %w", err)
		}
	}
	var a args
	where := edgeWhere(filter, &a)
	if len(where) == 0 {
		return 0, fmt.Errorf("delete edges: %w: an empty filter would delete every edge", holomem.ErrInvalid)
	}
	var n int64
	err := s.update(ctx, func(w *wtx) error {
		tag, err := w.exec("DELETE FROM edges AS e WHERE "+strings.Join(where, " AND "), a...)
		if err != nil {
			return err
		}
		n = tag.RowsAffected()
		if n > 0 {
			w.touch(filter.Namespace)
		}
		if n > 0 && (len(filter.Kinds) == 0 || slices.Contains(filter.Kinds, holomem.EdgeSupersedes)) {
			// superseded_by mirrors the supersedes edges.
			_, err = w.exec(`UPDATE facts SET superseded_by = NULL WHERE superseded_by IS NOT NULL
				AND NOT EXISTS (SELECT 1 FROM edges WHERE src = facts.superseded_by AND dst = facts.id AND kind = $1)`,
				string(holomem.EdgeSupersedes))
		}
		return err
	})
	if err != nil {
		return 0, fmt.Errorf("delete edges: %w", err)
	}
	return int(n), nil
}

// edgeWhere returns the SQL conditions (over edges aliased e) for every set
// field of filter but Limit, binding their values into a.
func edgeWhere(filter holomem.EdgeFilter, a *args) []string {
	var where []string
	if filter.FactID != 0 {
		p := a.add(filter.FactID)
		where = append(where, "(e.src = "+p+" OR e.dst = "+p+")")
	}
	if filter.From != 0 {
		where = append(where, "e.src = "+a.add(filter.From))
	}
	if filter.To != 0 {
		where = append(where, "e.dst = "+a.add(filter.To))
	}
	if len(filter.Kinds) > 0 {
		kinds := make([]string, len(filter.Kinds))
		for i, k := range filter.Kinds {
			kinds[i] = string(k)
		}
		where = append(where, "e.kind = ANY("+a.add(kinds)+"::text[])")
	}
	if filter.Origin != "" {
		where = append(where, "e.origin = "+a.add(filter.Origin))
	}
	if filter.Namespace != "" {
		// Edges never cross namespaces, so the source's namespace is enough.
		where = append(where, "e.src IN (SELECT id FROM facts WHERE namespace = "+a.add(filter.Namespace)+")")
	}
	return where
}

// FindEdges returns matching edges ordered by (from, to, kind). Limit 0
// means all.
func (s *Store) FindEdges(ctx context.Context, filter holomem.EdgeFilter) ([]*holomem.Edge, error) {
	if filter.Limit < 0 {
		return nil, fmt.Errorf("find edges: %w: negative limit", holomem.ErrInvalid)
	}
	var a args
	where := edgeWhere(filter, &a)
	q := "SELECT e.src, e.dst, e.kind, e.weight, e.origin, e.created_at FROM edges e"
	if len(where) > 0 {
		q += " WHERE " + strings.Join(where, " AND ")
	}
	// COLLATE "C": kinds sort by code point, as on SQLite.
	q += ` ORDER BY e.src, e.dst, e.kind COLLATE "C"`
	if filter.Limit > 0 {
		q += " LIMIT " + a.add(int64(filter.Limit))
	}
	var out []*holomem.Edge
	err := s.read(ctx, func(tx pgx.Tx) error {
		rows, err := tx.Query(ctx, q, a...)
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
			e.Kind, e.CreatedAt = holomem.EdgeKind(kind), fromNanos(createdAt)
			out = append(out, &e)
		}
		return rows.Err()
	})
	if err != nil {
		return nil, fmt.Errorf("find edges: %w", err)
	}
	return out, nil
}
