package web

import (
	"fmt"
	"net/http"

	"github.com/holomem/holomem"
)

// EdgeRequest is the body of POST /api/edges and, alternatively to the
// query parameters from, to and kind, of DELETE /api/edges.
type EdgeRequest struct {
	From int64            `json:"from"`
	To   int64            `json:"to"`
	Kind holomem.EdgeKind `json:"kind"`
	// Weight defaults to 1 when absent.
	Weight *float64 `json:"weight,omitempty"`
}

// EdgeResponse reports a stored edge.
type EdgeResponse struct {
	Created bool          `json:"created"`
	Edge    *holomem.Edge `json:"edge"`
}

// handleCreateEdge links two facts of the namespace: 201 when new, 200 when
// the edge existed (its weight is updated).
func (s *Server) handleCreateEdge(w http.ResponseWriter, r *http.Request) error {
	var req EdgeRequest
	if err := s.decodeJSON(w, r, &req); err != nil {
		return err
	}
	weight := 1.0
	if req.Weight != nil {
		weight = *req.Weight
	}
	e := &holomem.Edge{From: req.From, To: req.To, Kind: req.Kind, Weight: weight, Origin: holomem.OriginUser}
	if err := e.Validate(); err != nil {
		return err
	}
	if err := notIndexKind(e.Kind); err != nil {
		return err
	}
	if err := s.bothIn(r, e.From, e.To); err != nil {
		return err
	}
	created, err := s.store.CreateEdge(r.Context(), e)
	if err != nil {
		return fmt.Errorf("link %d -> %d: %w", e.From, e.To, err)
	}
	status := http.StatusOK
	if created {
		status = http.StatusCreated
	}
	writeJSON(w, status, EdgeResponse{Created: created, Edge: e})
	return nil
}

// handleDeleteEdge removes one edge named by ?from=&to=&kind= or by a JSON
// body with the same fields; 204 on success.
func (s *Server) handleDeleteEdge(w http.ResponseWriter, r *http.Request) error {
	var req EdgeRequest
	q := r.URL.Query()
	if q.Has("from") || q.Has("to") || q.Has("kind") {
		var err error
		if req.From, err = parseID("from", q.Get("from")); err != nil {
			return err
		}
		if req.To, err = parseID("to", q.Get("to")); err != nil {
			return err
		}
		req.Kind = holomem.EdgeKind(q.Get("kind"))
	} else if err := s.decodeJSON(w, r, &req); err != nil {
		return err
	}
	if err := req.Kind.Validate(); err != nil {
		return err
	}
	if err := notIndexKind(req.Kind); err != nil {
		return err
	}
	if err := s.bothIn(r, req.From, req.To); err != nil {
		return err
	}
	if err := s.store.DeleteEdge(r.Context(), req.From, req.To, req.Kind); err != nil {
		return fmt.Errorf("unlink %d -> %d: %w", req.From, req.To, err)
	}
	w.WriteHeader(http.StatusNoContent)
	return nil
}

// bothIn checks that both ends of an edge are facts of the request's namespace.
func (s *Server) bothIn(r *http.Request, from, to int64) error {
	ns := s.namespace(r, "")
	for _, id := range []int64{from, to} {
		if id <= 0 {
			return fmt.Errorf("%w: edge needs two positive fact ids, got %d -> %d", holomem.ErrInvalid, from, to)
		}
		if _, err := s.factIn(r.Context(), ns, id); err != nil {
			return err
		}
	}
	return nil
}

// notIndexKind refuses the HNSW layer kinds: the vector index owns those
// edges and rebuilds them; a hand-made one would corrupt its search.
func notIndexKind(k holomem.EdgeKind) error {
	if holomem.IsHNSWKind(k) {
		return fmt.Errorf("%w: kind %q is reserved for the vector index", holomem.ErrInvalid, k)
	}
	return nil
}
