package web

import (
	"fmt"
	"net/http"
	"net/url"
	"slices"
	"strconv"
	"strings"

	"github.com/holomem/holomem"
)

// searchForm is the search page's filters, echoed back into the form.
type searchForm struct {
	Q          string
	Category   string
	MinTrust   string
	Limit      int
	Superseded bool
	PPR        bool
}

// hitView is one result row.
type hitView struct {
	holomem.Hit
	Bars []bar
}

// bar is one channel's score drawn as a <meter>: no inline style needed,
// so the CSP can forbid inline styles too.
type bar struct {
	Channel string
	Score   float64
}

type searchData struct {
	Form     searchForm
	Result   *holomem.Result
	Hits     []hitView
	Channels string
	Recent   []*holomem.Fact
	Total    int
	// Tag is the ?tag= the newest facts are narrowed to; Browse is the
	// browse page with the same filters.
	Tag, Browse string
}

// searchPageLimit is the default number of hits on the search page.
const searchPageLimit = 20

// handleSearchPage is the home page: the hybrid recall with its filters,
// or, without a query, the namespace's newest facts.
func (s *Server) handleSearchPage(w http.ResponseWriter, r *http.Request, p *page) error {
	v := r.URL.Query()
	f := searchForm{Q: strings.TrimSpace(v.Get("q")), Category: strings.TrimSpace(v.Get("category")),
		MinTrust: strings.TrimSpace(v.Get("min_trust")), Superseded: v.Get("superseded") != "", PPR: v.Get("ppr") != "", Limit: searchPageLimit}
	if l := v.Get("limit"); l != "" {
		n, err := strconv.Atoi(l)
		if err != nil || n <= 0 || n > holomem.MaxLimit {
			return fmt.Errorf("%w: limit %q is not a number in 1..%d", holomem.ErrInvalid, l, holomem.MaxLimit)
		}
		f.Limit = n
	}
	d := &searchData{Form: f}
	p.Title, p.Nav, p.Data = "Search", "search", d
	if f.Q == "" {
		return s.newestFacts(w, r, p, d, strings.TrimSpace(v.Get("tag")))
	}
	q := holomem.Query{Text: f.Q, Namespace: p.Namespace, Category: f.Category, Limit: f.Limit,
		IncludeSuperseded: f.Superseded, PPR: f.PPR,
		// A person browsing is not an agent using a fact: leave the
		// retrieval counts to the agents.
		NoTouch: true}
	if f.MinTrust != "" {
		mt, err := strconv.ParseFloat(f.MinTrust, 64)
		if err != nil {
			return fmt.Errorf("%w: min trust %q is not a number", holomem.ErrInvalid, f.MinTrust)
		}
		q.MinTrust = &mt
	}
	res, err := s.mem.Recall(r.Context(), q)
	if err != nil {
		return fmt.Errorf("recall: %w", err)
	}
	d.Result = res
	names := make([]string, len(res.Channels))
	for i, c := range res.Channels {
		names[i] = string(c)
	}
	d.Channels = strings.Join(names, ", ")
	d.Hits = make([]hitView, len(res.Hits))
	for i, h := range res.Hits {
		d.Hits[i] = hitView{Hit: h, Bars: scoreBars(h.Scores, res.Channels)}
	}
	return s.render(w, r, "search", p)
}

// newestFacts fills the home page without a query: the namespace's newest
// facts under the category (and ?tag=) filter, read newest first by
// keyset when the store can (no OFFSET scan), with a link to the browse
// page holding the same filters.
func (s *Server) newestFacts(w http.ResponseWriter, r *http.Request, p *page, d *searchData, tag string) error {
	ns, f := p.Namespace, d.Form
	flt := holomem.FactFilter{Namespace: &ns, Limit: 1, IncludeSuperseded: f.Superseded}
	bf := holomem.BrowseFilter{Namespace: &ns, Order: holomem.BrowseID, Limit: f.Limit}
	if f.Superseded {
		bf.Superseded = holomem.SupersededShow
	}
	if f.Category != "" {
		flt.Category, bf.Category = &f.Category, &f.Category
	}
	if tag != "" {
		flt.Tag, bf.Tag = &tag, &tag
	}
	bv := url.Values{"namespace": {ns}}
	for k, x := range map[string]string{"category": f.Category, "tag": tag, "superseded": string(bf.Superseded)} {
		if x != "" {
			bv.Set(k, x)
		}
	}
	bv.Set("sort", string(holomem.BrowseID))
	d.Browse, d.Tag = "/browse?"+bv.Encode(), tag
	if fb, ok := holomem.As[holomem.FactBrowser](s.store); ok {
		var err error
		if d.Total, err = fb.CountFacts(r.Context(), bf); err != nil {
			return fmt.Errorf("count facts: %w", err)
		}
		if d.Recent, err = fb.BrowseFacts(r.Context(), bf); err != nil {
			return fmt.Errorf("list facts: %w", err)
		}
		return s.render(w, r, "search", p)
	}
	_, total, err := s.store.FindFacts(r.Context(), flt)
	if err != nil {
		return fmt.Errorf("count facts: %w", err)
	}
	d.Total = total
	// The newest facts: page from the end by offset.
	flt.Limit, flt.Offset = f.Limit, max(0, total-f.Limit)
	recent, _, err := s.store.FindFacts(r.Context(), flt)
	if err != nil {
		return fmt.Errorf("list facts: %w", err)
	}
	slices.Reverse(recent)
	d.Recent = recent
	return s.render(w, r, "search", p)
}

// scoreBars lists the scores of the channels that ran, in the order of
// the channel table (which Result.Channels keeps).
func scoreBars(sc holomem.Scores, ran []holomem.Channel) []bar {
	out := make([]bar, len(ran))
	for i, c := range ran {
		out[i] = bar{string(c), sc[c]}
	}
	return out
}

type probeData struct {
	Entity  string
	Hits    []holomem.Hit
	Related []holomem.EntityHit
}

// handleProbePage shows the facts about an entity (HRR probe) and the
// entities connected to it.
func (s *Server) handleProbePage(w http.ResponseWriter, r *http.Request, p *page) error {
	e := strings.TrimSpace(r.URL.Query().Get("entity"))
	if e == "" {
		return fmt.Errorf("%w: give ?entity=NAME", holomem.ErrInvalid)
	}
	hits, err := s.mem.Probe(r.Context(), p.Namespace, e, searchPageLimit)
	if err != nil {
		return fmt.Errorf("probe %q: %w", e, err)
	}
	rel, err := s.mem.Related(r.Context(), p.Namespace, e, DefaultResultLimit)
	if err != nil {
		return fmt.Errorf("related %q: %w", e, err)
	}
	p.Title, p.Nav, p.Data = "Probe "+e, "search", &probeData{Entity: e, Hits: hits, Related: rel}
	return s.render(w, r, "probe", p)
}
