package web

import (
	"fmt"
	"net/http"

	"github.com/holomem/holomem"
)

// FactRequest is the body of POST /api/facts.
type FactRequest struct {
	Content     string          `json:"content"`
	Category    string          `json:"category,omitempty"`
	Tags        []string        `json:"tags,omitempty"`
	Source      string          `json:"source,omitempty"`
	ExternalKey string          `json:"external_key,omitempty"`
	Anchor      *holomem.Anchor `json:"anchor,omitempty"`
	// Namespace overrides ?namespace= and the header for this fact.
	Namespace string `json:"namespace,omitempty"`
}

// DefaultSource is recorded on facts posted without a source.
const DefaultSource = "api"

// handleCreateFact remembers a fact: 201 with the Remembered report, or
// 200 when the namespace already held the same content or key.
func (s *Server) handleCreateFact(w http.ResponseWriter, r *http.Request) error {
	var req FactRequest
	if err := s.decodeJSON(w, r, &req); err != nil {
		return err
	}
	src := req.Source
	if src == "" {
		src = DefaultSource
	}
	a, err := s.checkAnchor(r.Context(), req.Anchor)
	if err != nil {
		return err
	}
	f := &holomem.Fact{
		Namespace: s.namespace(r, req.Namespace), Content: req.Content, Category: req.Category,
		Tags: req.Tags, Source: src, ExternalKey: req.ExternalKey, Anchor: a,
	}
	rem, err := s.mem.Remember(r.Context(), f)
	if err != nil {
		return fmt.Errorf("remember: %w", err)
	}
	rem.Fact = slim(rem.Fact)
	rem.NearDuplicates = slimHits(rem.NearDuplicates)
	rem.Contradictions = slimHits(rem.Contradictions)
	status := http.StatusOK
	if rem.Created {
		status = http.StatusCreated
		if rem.Fact != nil {
			w.Header().Set("Location", fmt.Sprintf("/api/facts/%d", rem.Fact.ID))
		}
	}
	writeJSON(w, status, rem)
	return nil
}

// FactList is the body of GET /api/facts.
type FactList struct {
	Facts []*holomem.Fact `json:"facts"`
	// Total counts the facts that match, superseded ones only with
	// ?include_superseded=true.
	Total  int `json:"total"`
	Offset int `json:"offset"`
	Limit  int `json:"limit"`
	// IncludeSuperseded says whether superseded facts are listed and
	// counted; SupersededExcluded is how many matching ones were left out
	// (0 when they are included), so a total that differs from `holomem
	// stats` says why.
	IncludeSuperseded  bool `json:"include_superseded"`
	SupersededExcluded int  `json:"superseded_excluded"`
}

// handleListFacts lists a namespace's facts by id, filtered by ?category=,
// ?tag= and ?source=, paged by ?limit= (default 50, at most 1000) and ?offset=.
func (s *Server) handleListFacts(w http.ResponseWriter, r *http.Request) error {
	limit, err := queryInt(r, "limit", DefaultListLimit)
	if err != nil {
		return err
	}
	if limit == 0 {
		limit = DefaultListLimit
	}
	if limit > holomem.MaxLimit {
		return fmt.Errorf("%w: limit %d is above %d", holomem.ErrInvalid, limit, holomem.MaxLimit)
	}
	offset, err := queryInt(r, "offset", 0)
	if err != nil {
		return err
	}
	superseded, err := queryBool(r, "include_superseded")
	if err != nil {
		return err
	}
	ns := s.namespace(r, "")
	if err := allowNS(r.Context(), ns); err != nil {
		return err
	}
	filter := holomem.FactFilter{Namespace: &ns, Offset: offset, Limit: limit, IncludeSuperseded: superseded}
	q := r.URL.Query()
	for name, dst := range map[string]**string{"category": &filter.Category, "tag": &filter.Tag, "source": &filter.Source} {
		if v := q.Get(name); v != "" {
			*dst = &v
		}
	}
	facts, total, err := s.store.FindFacts(r.Context(), filter)
	if err != nil {
		return fmt.Errorf("list facts: %w", err)
	}
	for i := range facts {
		facts[i] = slim(facts[i])
	}
	if facts == nil {
		facts = []*holomem.Fact{}
	}
	excluded := 0
	if !superseded {
		all := filter
		all.IncludeSuperseded, all.Offset, all.Limit = true, 0, 1
		_, n, err := s.store.FindFacts(r.Context(), all)
		if err != nil {
			return fmt.Errorf("list facts: count superseded: %w", err)
		}
		excluded = max(0, n-total)
	}
	writeJSON(w, http.StatusOK, FactList{Facts: facts, Total: total, Offset: offset, Limit: limit,
		IncludeSuperseded: superseded, SupersededExcluded: excluded})
	return nil
}

func (s *Server) handleGetFact(w http.ResponseWriter, r *http.Request) error {
	id, err := pathID(r)
	if err != nil {
		return err
	}
	f, err := s.factIn(r.Context(), s.namespace(r, ""), id)
	if err != nil {
		return err
	}
	writeJSON(w, http.StatusOK, slim(f))
	return nil
}

// FactPatch is the body of PATCH /api/facts/{id}; absent fields stay.
type FactPatch struct {
	Content  *string         `json:"content,omitempty"`
	Category *string         `json:"category,omitempty"`
	Tags     *[]string       `json:"tags,omitempty"`
	Source   *string         `json:"source,omitempty"`
	Trust    *float64        `json:"trust,omitempty"`
	Anchor   *holomem.Anchor `json:"anchor,omitempty"`
}

func (s *Server) handleUpdateFact(w http.ResponseWriter, r *http.Request) error {
	id, err := pathID(r)
	if err != nil {
		return err
	}
	var p FactPatch
	if err := s.decodeJSON(w, r, &p); err != nil {
		return err
	}
	if p == (FactPatch{}) {
		return fmt.Errorf("%w: the patch changes nothing; give content, category, tags, source, trust or anchor", holomem.ErrInvalid)
	}
	if _, err := s.factIn(r.Context(), s.namespace(r, ""), id); err != nil {
		return err
	}
	if p.Anchor, err = s.checkAnchor(r.Context(), p.Anchor); err != nil {
		return err
	}
	f, err := s.mem.Update(r.Context(), id, holomem.FactUpdate{
		Content: p.Content, Category: p.Category, Tags: p.Tags, Source: p.Source, Trust: p.Trust, Anchor: p.Anchor,
	})
	if err != nil {
		return fmt.Errorf("update %d: %w", id, err)
	}
	writeJSON(w, http.StatusOK, slim(f))
	return nil
}

func (s *Server) handleDeleteFact(w http.ResponseWriter, r *http.Request) error {
	id, err := pathID(r)
	if err != nil {
		return err
	}
	if _, err := s.factIn(r.Context(), s.namespace(r, ""), id); err != nil {
		return err
	}
	if err := s.mem.Forget(r.Context(), id); err != nil {
		return fmt.Errorf("forget %d: %w", id, err)
	}
	w.WriteHeader(http.StatusNoContent)
	return nil
}

// FeedbackRequest is the body of POST /api/facts/{id}/feedback.
type FeedbackRequest struct {
	Helpful *bool `json:"helpful"`
}

func (s *Server) handleFeedback(w http.ResponseWriter, r *http.Request) error {
	id, err := pathID(r)
	if err != nil {
		return err
	}
	var req FeedbackRequest
	if err := s.decodeJSON(w, r, &req); err != nil {
		return err
	}
	if req.Helpful == nil {
		return fmt.Errorf("%w: body needs \"helpful\": true or false", holomem.ErrInvalid)
	}
	if _, err := s.factIn(r.Context(), s.namespace(r, ""), id); err != nil {
		return err
	}
	f, err := s.mem.Feedback(r.Context(), id, *req.Helpful)
	if err != nil {
		return fmt.Errorf("feedback %d: %w", id, err)
	}
	writeJSON(w, http.StatusOK, slim(f))
	return nil
}

// SupersedeRequest is the body of POST /api/supersede: New replaces Old.
type SupersedeRequest struct {
	Old int64 `json:"old"`
	New int64 `json:"new"`
}

// SupersedeResponse confirms a supersession.
type SupersedeResponse struct {
	Old        int64 `json:"old"`
	New        int64 `json:"new"`
	Superseded bool  `json:"superseded"`
}

func (s *Server) handleSupersede(w http.ResponseWriter, r *http.Request) error {
	var req SupersedeRequest
	if err := s.decodeJSON(w, r, &req); err != nil {
		return err
	}
	if req.Old <= 0 || req.New <= 0 {
		return fmt.Errorf("%w: body needs positive \"old\" and \"new\" fact ids", holomem.ErrInvalid)
	}
	ns := s.namespace(r, "")
	for _, id := range []int64{req.Old, req.New} {
		if _, err := s.factIn(r.Context(), ns, id); err != nil {
			return err
		}
	}
	if err := s.mem.Supersede(r.Context(), req.Old, req.New); err != nil {
		return err // it names the operation and the ids
	}
	writeJSON(w, http.StatusOK, SupersedeResponse{Old: req.Old, New: req.New, Superseded: true})
	return nil
}

// EdgeList is the body of GET /api/facts/{id}/edges: the fact's edges in
// both directions, without the HNSW layer kinds unless ?kind= names one.
type EdgeList struct {
	Edges []*holomem.Edge `json:"edges"`
}

func (s *Server) handleFactEdges(w http.ResponseWriter, r *http.Request) error {
	id, err := pathID(r)
	if err != nil {
		return err
	}
	if _, err := s.factIn(r.Context(), s.namespace(r, ""), id); err != nil {
		return err
	}
	limit, err := queryInt(r, "limit", holomem.MaxLimit)
	if err != nil {
		return err
	}
	filter := holomem.EdgeFilter{FactID: id, Limit: limit}
	k := r.URL.Query().Get("kind")
	if k != "" {
		filter.Kinds = []holomem.EdgeKind{holomem.EdgeKind(k)}
	}
	edges, err := s.store.FindEdges(r.Context(), filter)
	if err != nil {
		return fmt.Errorf("edges of %d: %w", id, err)
	}
	// The rule every door shows edges by: the index's similar_to edges
	// only for ?kind=similar_to.
	edges = holomem.ShownEdges(edges, filter.Kinds)
	if edges == nil {
		edges = []*holomem.Edge{}
	}
	writeJSON(w, http.StatusOK, EdgeList{Edges: edges})
	return nil
}
