package web

import (
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
	created, err := s.mem.Link(r.Context(), s.namespace(r, ""), e)
	if err != nil {
		return err
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
	if err := s.mem.Unlink(r.Context(), s.namespace(r, ""), req.From, req.To, req.Kind); err != nil {
		return err
	}
	w.WriteHeader(http.StatusNoContent)
	return nil
}
