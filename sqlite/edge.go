package sqlite

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"slices"
	"strings"

	"github.com/holomem/holomem"
)

func sortIDs(ids []int64) { slices.Sort(ids) }

// factRef is what edge checks need to know about an endpoint.
type factRef struct {
	namespace    string
	supersededBy int64
}

// factRef returns what edge checks need about fact id, cached for the rest
// of the transaction (a graph build links the same facts many times).
func (w *wtx) factRef(id int64) (factRef, error) {
	if r, ok := w.refs[id]; ok {
		return r, nil
	}
	var r factRef
	var sup sql.NullInt64
	err := w.queryRow("SELECT namespace, superseded_by FROM facts WHERE id = ?", id).Scan(&r.namespace, &sup)
	if errors.Is(err, sql.ErrNoRows) {
		return r, fmt.Errorf("fact %d: %w", id, holomem.ErrNotFound)
	}
	if err != nil {
		return r, err
	}
	r.supersededBy = sup.Int64
	if w.refs == nil {
		w.refs = make(map[int64]factRef)
	}
	w.refs[id] = r
	return r, nil
}

// createEdge stores e (or updates the weight of the existing edge) and
// fills its defaults. A supersedes edge also sets To's superseded_by, so
// the column always mirrors the edges.
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
	res, err := w.exec("INSERT OR IGNORE INTO edges (src, dst, kind, weight, origin, created_at) VALUES (?, ?, ?, ?, ?, ?)",
		e.From, e.To, string(e.Kind), e.Weight, e.Origin, nanos(createdAt))
	if err != nil {
		return false, err
	}
	n, err := res.RowsAffected()
	if err != nil {
		return false, err
	}
	created := n == 1
	if created {
		e.CreatedAt = fromNanos(nanos(createdAt))
	} else {
		// The edge exists: update its weight and report its origin and time.
		var origin string
		var at int64
		err := w.queryRow("UPDATE edges SET weight = ? WHERE src = ? AND dst = ? AND kind = ? RETURNING origin, created_at",
			e.Weight, e.From, e.To, string(e.Kind)).Scan(&origin, &at)
		if err != nil {
			return false, err
		}
		e.Origin, e.CreatedAt = origin, fromNanos(at)
	}
	if e.Kind == holomem.EdgeSupersedes {
		if _, err := w.exec("UPDATE facts SET superseded_by = ? WHERE id = ?", e.From, e.To); err != nil {
			return false, err
		}
		w.refs[e.To] = factRef{namespace: to.namespace, supersededBy: e.From}
	}
	return created, nil
}

// CreateEdge stores an edge, filling Origin (default [holomem.OriginUser])
// and CreatedAt (now, unless set). When the edge already exists its weight
// is updated, e gets the stored origin and time, and created is false.
// A supersedes edge also hides its To fact, as [Store.Supersede] does.
// Returns ErrInvalid (bad edge, endpoints in different namespaces) or
// ErrNotFound for unknown facts.
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

// CreateEdges stores many edges in one transaction (imports, graph build)
// and returns how many were new. Nothing is stored when one edge fails; the
// error names its index.
func (s *Store) CreateEdges(ctx context.Context, es []*holomem.Edge) (int, error) {
	n := 0
	err := s.update(ctx, func(w *wtx) error {
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
		res, err := w.exec("DELETE FROM edges WHERE src = ? AND dst = ? AND kind = ?", from, to, string(kind))
		if err != nil {
			return err
		}
		if n, _ := res.RowsAffected(); n == 0 {
			return fmt.Errorf("edge %d -> %d (%s): %w", from, to, kind, holomem.ErrNotFound)
		}
		if kind == holomem.EdgeSupersedes {
			_, err = w.exec("UPDATE facts SET superseded_by = NULL WHERE id = ? AND superseded_by = ?", to, from)
		}
		return err
	})
	if err != nil {
		return fmt.Errorf("delete edge: %w", err)
	}
	return nil
}

// DeleteEdges removes the edges matching filter (a graph rebuild deletes
// one namespace's HNSW edges) and returns how many. Every filter field but
// Limit applies; an empty filter, or one with a Limit, returns ErrInvalid
// instead of deleting everything. Removing supersedes edges makes the facts
// they hid visible again.
func (s *Store) DeleteEdges(ctx context.Context, filter holomem.EdgeFilter) (int, error) {
	if filter.Limit != 0 {
		return 0, fmt.Errorf("delete edges: %w: a limit is not supported", holomem.ErrInvalid)
	}
	for _, k := range filter.Kinds {
		if err := k.Validate(); err != nil {
			return 0, fmt.Errorf("delete edges: %w", err)
		}
	}
	where, args := edgeWhere(filter)
	if len(where) == 0 {
		return 0, fmt.Errorf("delete edges: %w: an empty filter would delete every edge", holomem.ErrInvalid)
	}
	var n int64
	err := s.update(ctx, func(w *wtx) error {
		res, err := w.exec("DELETE FROM edges AS e WHERE "+strings.Join(where, " AND "), args...)
		if err != nil {
			return err
		}
		n, _ = res.RowsAffected()
		if n > 0 && (len(filter.Kinds) == 0 || slices.Contains(filter.Kinds, holomem.EdgeSupersedes)) {
			// superseded_by mirrors the supersedes edges.
			_, err = w.exec(`UPDATE facts SET superseded_by = NULL WHERE superseded_by IS NOT NULL
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

// edgeWhere returns the SQL conditions (over edges aliased e) and their
// arguments for every set field of filter but Limit.
func edgeWhere(filter holomem.EdgeFilter) ([]string, []any) {
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
func (s *Store) FindEdges(ctx context.Context, filter holomem.EdgeFilter) ([]*holomem.Edge, error) {
	if filter.Limit < 0 {
		return nil, fmt.Errorf("find edges: %w: negative limit", holomem.ErrInvalid)
	}
	where, args := edgeWhere(filter)
	q := "SELECT e.src, e.dst, e.kind, e.weight, e.origin, e.created_at FROM edges e"
	if len(where) > 0 {
		q += " WHERE " + strings.Join(where, " AND ")
	}
	q += " ORDER BY e.src, e.dst, e.kind"
	if filter.Limit > 0 {
		q += " LIMIT ?"
		args = append(args, filter.Limit)
	}
	var out []*holomem.Edge
	err := s.read(ctx, func(tx *sql.Tx) error {
		rows, err := tx.QueryContext(ctx, q, args...)
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
