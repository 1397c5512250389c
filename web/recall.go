package web

import (
	"encoding/json"
	"fmt"
	"net/http"
	"strconv"

	"github.com/holomem/holomem"
)

// recallBody is POST /api/recall's body: a holomem.Query whose text is
// "query", as in MCP's recall tool and GET's ?query=; "text" (holomem.Query's
// own field name) is still accepted.
type recallBody struct {
	holomem.Query
	QueryText *string `json:"query"`
	recallShape
}

// recallShape says how much of a recall answer to send: snippets (the
// default) or whole facts, and the token budget of the whole body.
type recallShape struct {
	// Full sends each hit's whole content in fact.content; without it
	// fact.content is empty and the hit's snippet says what matched.
	Full bool `json:"full,omitempty"`
	// Budget bounds the whole body to about this many tokens (runes / 4):
	// hits are dropped from the end, and omitted and next_offset say how
	// many and from where to page. 0: no bound.
	Budget int `json:"budget,omitempty"`
}

// handleRecallPost runs a recall from a holomem.Query JSON body.
func (s *Server) handleRecallPost(w http.ResponseWriter, r *http.Request) error {
	var b recallBody
	if err := s.decodeJSON(w, r, &b); err != nil {
		return err
	}
	q := b.Query
	var err error
	if b.QueryText != nil {
		if q.Text, err = oneQueryText(*b.QueryText, "query", q.Text, "text"); err != nil {
			return err
		}
	}
	q.Namespace = s.namespace(r, q.Namespace)
	return s.recall(w, r, q, b.recallShape)
}

// oneQueryText returns the query text given under the canonical name or
// its alias, refusing two different texts.
func oneQueryText(text, name, alias, aliasName string) (string, error) {
	switch {
	case alias == "" || alias == text:
		return text, nil
	case text == "":
		return alias, nil
	}
	return "", fmt.Errorf("%w: %s and %s differ: give the query once, as %s", holomem.ErrInvalid, name, aliasName, name)
}

// handleRecallGet runs a recall from ?query= (the text; ?q= is an alias),
// ?limit=, ?offset=, ?category=, ?min_trust=, ?ppr=, ?follow_causal=,
// ?include_superseded=, ?full= and ?budget=.
func (s *Server) handleRecallGet(w http.ResponseWriter, r *http.Request) error {
	v := r.URL.Query()
	text, err := oneQueryText(v.Get("query"), "query", v.Get("q"), "q")
	if err != nil {
		return err
	}
	q := holomem.Query{Text: text, Namespace: s.namespace(r, ""), Category: v.Get("category")}
	if q.Limit, err = queryInt(r, "limit", 0); err != nil {
		return err
	}
	if q.Offset, err = queryInt(r, "offset", 0); err != nil {
		return err
	}
	var shape recallShape
	if shape.Budget, err = queryInt(r, "budget", 0); err != nil {
		return err
	}
	if shape.Full, err = queryBool(r, "full"); err != nil {
		return err
	}
	if t := v.Get("min_trust"); t != "" {
		mt, err := strconv.ParseFloat(t, 64)
		if err != nil {
			return fmt.Errorf("%w: min_trust %q is not a number", holomem.ErrInvalid, t)
		}
		q.MinTrust = &mt
	}
	for name, dst := range map[string]*bool{"ppr": &q.PPR, "follow_causal": &q.FollowCausal, "include_superseded": &q.IncludeSuperseded} {
		if *dst, err = queryBool(r, name); err != nil {
			return err
		}
	}
	return s.recall(w, r, q, shape)
}

func (s *Server) recall(w http.ResponseWriter, r *http.Request, q holomem.Query, shape recallShape) error {
	if err := holomem.ValidateBudget(shape.Budget); err != nil {
		return err
	}
	res, err := s.mem.Recall(r.Context(), q)
	if err != nil {
		return fmt.Errorf("recall: %w", err)
	}
	res.Hits = slimHits(res.Hits)
	if !shape.Full {
		res = res.SnippetsOnly()
	}
	if shape.Budget > 0 {
		holomem.FitResult(res, shape.Budget, q.Offset, func(r *holomem.Result) int {
			b, _ := json.Marshal(r)
			return holomem.EstimateTokens(string(b)) + 1 // the newline
		})
	}
	writeJSON(w, http.StatusOK, res)
	return nil
}

// HitList is the body of GET /api/probe and GET /api/reason.
type HitList struct {
	Hits []holomem.Hit `json:"hits"`
}

// EntityList is the body of GET /api/related.
type EntityList struct {
	Entities []holomem.EntityHit `json:"entities"`
}

// entityArgs reads ?entity= (required) and ?limit=.
func entityArgs(r *http.Request) (entities []string, limit int, err error) {
	entities = r.URL.Query()["entity"]
	if len(entities) == 0 {
		return nil, 0, fmt.Errorf("%w: give ?entity=NAME", holomem.ErrInvalid)
	}
	limit, err = queryInt(r, "limit", DefaultResultLimit)
	if limit == 0 {
		limit = DefaultResultLimit
	}
	return entities, limit, err
}

func (s *Server) handleProbe(w http.ResponseWriter, r *http.Request) error {
	es, limit, err := entityArgs(r)
	if err != nil {
		return err
	}
	hits, err := s.mem.Probe(r.Context(), s.namespace(r, ""), es[0], limit)
	if err != nil {
		return fmt.Errorf("probe %q: %w", es[0], err)
	}
	return writeHits(w, r, hits)
}

// writeHits answers probe and reason: hits with snippets, whole content
// with ?full=1.
func writeHits(w http.ResponseWriter, r *http.Request, hits []holomem.Hit) error {
	full, err := queryBool(r, "full")
	if err != nil {
		return err
	}
	res := &holomem.Result{Hits: slimHits(hits)}
	if !full {
		res = res.SnippetsOnly()
	}
	writeJSON(w, http.StatusOK, HitList{Hits: res.Hits})
	return nil
}

func (s *Server) handleRelated(w http.ResponseWriter, r *http.Request) error {
	es, limit, err := entityArgs(r)
	if err != nil {
		return err
	}
	hits, err := s.mem.Related(r.Context(), s.namespace(r, ""), es[0], limit)
	if err != nil {
		return fmt.Errorf("related %q: %w", es[0], err)
	}
	if hits == nil {
		hits = []holomem.EntityHit{}
	}
	writeJSON(w, http.StatusOK, EntityList{Entities: hits})
	return nil
}

// handleReason finds facts involving every ?entity= given.
func (s *Server) handleReason(w http.ResponseWriter, r *http.Request) error {
	es, limit, err := entityArgs(r)
	if err != nil {
		return err
	}
	hits, err := s.mem.Reason(r.Context(), s.namespace(r, ""), es, limit)
	if err != nil {
		return fmt.Errorf("reason %q: %w", es, err)
	}
	return writeHits(w, r, hits)
}

func (s *Server) handleStats(w http.ResponseWriter, r *http.Request) error {
	ns := s.namespace(r, "")
	if err := allowNS(r.Context(), ns); err != nil {
		return err
	}
	st, err := s.store.Stats(r.Context(), ns)
	if err != nil {
		return fmt.Errorf("stats: %w", err)
	}
	st.Path = "" // where the file lives is the operator's business, not a client's
	writeJSON(w, http.StatusOK, st)
	return nil
}
