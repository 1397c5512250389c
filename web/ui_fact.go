package web

import (
	"context"
	"fmt"
	"net/http"
	"slices"
	"strconv"
	"strings"

	"github.com/holomem/holomem"
)

// anchorChecker is implemented by memories that can tell whether a fact's
// anchored file changed (retrieve.Memory does).
type anchorChecker interface {
	AnchorState(ctx context.Context, a *holomem.Anchor) string
}

// anchorMaker is implemented by memories that check and hash a new
// anchor's file (retrieve.Memory does).
type anchorMaker interface {
	NewAnchor(ctx context.Context, rel string) (*holomem.Anchor, error)
}

// checkAnchor replaces an anchor sent by a client with one made by the
// memory: the file must be a regular file inside the anchor root (no
// symlink out, no FIFO, no directory), and its hash is the server's, not
// the client's (an empty one would never show a change). An anchor with
// an empty path is passed on as it is (an update clears the anchor).
func (s *Server) checkAnchor(ctx context.Context, a *holomem.Anchor) (*holomem.Anchor, error) {
	if a == nil || a.Path == "" {
		return a, nil
	}
	am, ok := s.mem.(anchorMaker)
	if !ok {
		return nil, fmt.Errorf("%w: this server cannot check anchors", holomem.ErrInvalid)
	}
	return am.NewAnchor(ctx, a.Path)
}

// Bounds of the fact page: how many edges and chain steps it shows.
const (
	factPageEdges = 50
	chainDepth    = 6
	chainMax      = 40
)

type edgeView struct {
	Kind   holomem.EdgeKind
	Origin string
	Weight float64
	// Other is the fact at the far end; nil when it could not be read.
	OtherID int64
	Other   *holomem.Fact
}

type chainStep struct {
	// Dir is "cause" (reached against causal edges) or "effect".
	Dir   string
	Depth int
	Fact  *holomem.Fact
}

type factData struct {
	Fact        *holomem.Fact
	AnchorState string
	Tags        string
	Out, In     []edgeView
	More        int
	Chain       []chainStep
	Kinds       []holomem.EdgeKind
	Done        string
}

// doneMessages are the confirmations a redirect can ask the fact page to
// show (?done=KEY); free text never travels in the URL.
var doneMessages = map[string]string{
	"saved": "Saved.", "helpful": "Marked helpful: trust +0.05.", "unhelpful": "Marked unhelpful: trust −0.10.",
	"superseded": "Superseded: this fact now replaces the other one.", "linked": "Linked.", "created": "Remembered.",
	"existing": "Already remembered: this is the existing fact.",
}

// handleFactPage shows one fact with its entities, edges and causal chain.
// The UI curates the whole database, so a fact page opens whatever the
// namespace; the page then works in the fact's namespace.
func (s *Server) handleFactPage(w http.ResponseWriter, r *http.Request, p *page) error {
	id, err := pathFactID(r)
	if err != nil {
		return err
	}
	d, err := s.factData(r.Context(), id)
	if err != nil {
		return err
	}
	d.Done = doneMessages[r.URL.Query().Get("done")]
	p.Title, p.Namespace, p.Data = fmt.Sprintf("#%d", id), d.Fact.Namespace, d
	return s.render(w, r, "fact", p)
}

func (s *Server) factData(ctx context.Context, id int64) (*factData, error) {
	f, err := s.store.FindFactByID(ctx, id)
	if err != nil {
		return nil, err
	}
	d := &factData{Fact: slim(f), Tags: strings.Join(f.Tags, ", "),
		Kinds: []holomem.EdgeKind{holomem.EdgeCausal, holomem.EdgeSimilar, holomem.EdgeTemporal}}
	if ac, ok := s.mem.(anchorChecker); ok && f.Anchor != nil {
		d.AnchorState = ac.AnchorState(ctx, f.Anchor)
	}
	edges, err := s.store.FindEdges(ctx, holomem.EdgeFilter{FactID: id, Limit: holomem.MaxLimit})
	if err != nil {
		return nil, fmt.Errorf("edges of %d: %w", id, err)
	}
	edges = holomem.ShownEdges(edges, nil) // the rule every door shows edges by
	if len(edges) > factPageEdges {
		d.More = len(edges) - factPageEdges
		edges = edges[:factPageEdges]
	}
	others := make([]int64, 0, len(edges))
	for _, e := range edges {
		others = append(others, otherEnd(e, id))
	}
	byID, err := s.factsByID(ctx, others)
	if err != nil {
		return nil, err
	}
	for _, e := range edges {
		o := otherEnd(e, id)
		v := edgeView{Kind: e.Kind, Origin: e.Origin, Weight: e.Weight, OtherID: o, Other: byID[o]}
		if e.From == id {
			d.Out = append(d.Out, v)
		} else {
			d.In = append(d.In, v)
		}
	}
	if d.Chain, err = s.causalChain(ctx, id); err != nil {
		return nil, err
	}
	return d, nil
}

func otherEnd(e *holomem.Edge, id int64) int64 {
	if e.From == id {
		return e.To
	}
	return e.From
}

// factsByID loads facts in one query (superseded ones too).
func (s *Server) factsByID(ctx context.Context, ids []int64) (map[int64]*holomem.Fact, error) {
	out := make(map[int64]*holomem.Fact, len(ids))
	if len(ids) == 0 {
		return out, nil
	}
	fs, _, err := s.store.FindFacts(ctx, holomem.FactFilter{IDs: ids, IncludeSuperseded: true})
	if err != nil {
		return nil, fmt.Errorf("load neighbours: %w", err)
	}
	for _, f := range fs {
		out[f.ID] = f
	}
	return out, nil
}

// causalChain is what led to the fact and what it led to over causal
// edges (Memory.Chain holds the rule), at most chainDepth hops and
// chainMax facts.
func (s *Server) causalChain(ctx context.Context, id int64) ([]chainStep, error) {
	steps, err := s.mem.Chain(ctx, id, nil, chainDepth)
	if err != nil {
		return nil, fmt.Errorf("causal chain of %d: %w", id, err)
	}
	out := make([]chainStep, 0, min(len(steps), chainMax))
	for _, st := range steps {
		if len(out) == chainMax {
			break
		}
		if st.Fact == nil {
			continue
		}
		dir := "effect"
		if st.Direction == holomem.ChainBackward {
			dir = "cause"
		}
		out = append(out, chainStep{Dir: dir, Depth: len(st.Path) - 1, Fact: st.Fact})
	}
	return out, nil
}

// handleEditForm changes content, category and tags (fields left out of
// the form stay as they are).
func (s *Server) handleEditForm(w http.ResponseWriter, r *http.Request, p *page) error {
	id, err := pathFactID(r)
	if err != nil {
		return err
	}
	f, err := s.store.FindFactByID(r.Context(), id)
	if err != nil {
		return err
	}
	var upd holomem.FactUpdate
	s.parseForm(r) //nolint:errcheck // page reported a broken body before the handler ran
	if r.PostForm.Has("content") {
		c := strings.ReplaceAll(s.formValue(r, "content"), "\r\n", "\n")
		if c != f.Content {
			upd.Content = &c
		}
	}
	if r.PostForm.Has("category") {
		c := strings.TrimSpace(s.formValue(r, "category"))
		if c != f.Category {
			upd.Category = &c
		}
	}
	if r.PostForm.Has("tags") {
		tags := holomem.NormalizeTags(strings.Split(s.formValue(r, "tags"), ","))
		if !slices.Equal(tags, f.Tags) {
			if tags == nil {
				tags = []string{}
			}
			upd.Tags = &tags
		}
	}
	if upd.Content == nil && upd.Category == nil && upd.Tags == nil {
		return seeOther(w, r, factPath(id)+"?done=saved")
	}
	if _, err := s.mem.Update(r.Context(), id, upd); err != nil {
		return fmt.Errorf("update %d: %w", id, err)
	}
	return seeOther(w, r, factPath(id)+"?done=saved")
}

func (s *Server) handleFeedbackForm(w http.ResponseWriter, r *http.Request, p *page) error {
	id, err := pathFactID(r)
	if err != nil {
		return err
	}
	var helpful bool
	switch v := s.formValue(r, "helpful"); v {
	case "true":
		helpful = true
	case "false":
	default:
		return fmt.Errorf("%w: helpful must be true or false, not %q", holomem.ErrInvalid, v)
	}
	if _, err := s.mem.Feedback(r.Context(), id, helpful); err != nil {
		return fmt.Errorf("feedback %d: %w", id, err)
	}
	done := "unhelpful"
	if helpful {
		done = "helpful"
	}
	return seeOther(w, r, factPath(id)+"?done="+done)
}

// handleForgetPage asks for confirmation: forgetting cannot be undone.
func (s *Server) handleForgetPage(w http.ResponseWriter, r *http.Request, p *page) error {
	id, err := pathFactID(r)
	if err != nil {
		return err
	}
	f, err := s.store.FindFactByID(r.Context(), id)
	if err != nil {
		return err
	}
	p.Title, p.Namespace, p.Data = fmt.Sprintf("Forget #%d?", id), f.Namespace, slim(f)
	return s.render(w, r, "forget", p)
}

func (s *Server) handleForgetForm(w http.ResponseWriter, r *http.Request, p *page) error {
	id, err := pathFactID(r)
	if err != nil {
		return err
	}
	if s.formValue(r, "confirm") != "yes" {
		return seeOther(w, r, factPath(id))
	}
	f, err := s.store.FindFactByID(r.Context(), id)
	if err != nil {
		return err
	}
	if err := s.mem.Forget(r.Context(), id); err != nil {
		return fmt.Errorf("forget %d: %w", id, err)
	}
	q := s.nsQuery(f.Namespace)
	if q != "" {
		q += "&"
	}
	return seeOther(w, r, "/?"+q+"forgot="+strconv.FormatInt(id, 10))
}

// formID reads a fact id typed into a form ("12" or "#12").
func (s *Server) formID(r *http.Request, name string) (int64, error) {
	return parseID(name, strings.TrimPrefix(strings.TrimSpace(s.formValue(r, name)), "#"))
}

// handleSupersedeForm: this fact replaces the fact named in the form
// ("old"), or, with "new" given, is replaced by it.
func (s *Server) handleSupersedeForm(w http.ResponseWriter, r *http.Request, p *page) error {
	id, err := pathFactID(r)
	if err != nil {
		return err
	}
	older, newer := int64(0), id
	if s.formValue(r, "new") != "" {
		older = id
		if newer, err = s.formID(r, "new"); err != nil {
			return err
		}
	} else if older, err = s.formID(r, "old"); err != nil {
		return err
	}
	if err := s.sameNamespace(r.Context(), older, newer); err != nil {
		return err
	}
	if err := s.mem.Supersede(r.Context(), older, newer); err != nil {
		return err // it names the operation and the ids
	}
	return seeOther(w, r, factPath(newer)+"?done=superseded")
}

// sameNamespace refuses to connect facts of two namespaces, as the API does.
func (s *Server) sameNamespace(ctx context.Context, a, b int64) error {
	fa, err := s.store.FindFactByID(ctx, a)
	if err != nil {
		return err
	}
	if _, err := s.factIn(ctx, fa.Namespace, b); err != nil {
		return err
	}
	return nil
}

// handleLinkForm adds a typed edge from this fact to the one in the form.
func (s *Server) handleLinkForm(w http.ResponseWriter, r *http.Request, p *page) error {
	id, err := pathFactID(r)
	if err != nil {
		return err
	}
	to, err := s.formID(r, "to")
	if err != nil {
		return err
	}
	e := &holomem.Edge{From: id, To: to, Kind: holomem.EdgeKind(strings.TrimSpace(s.formValue(r, "kind"))), Weight: 1, Origin: holomem.OriginUser}
	if e.Kind == holomem.EdgeSupersedes {
		return fmt.Errorf("%w: use the supersede form for supersedes edges", holomem.ErrInvalid)
	}
	f, err := s.store.FindFactByID(r.Context(), id)
	if err != nil {
		return err
	}
	// Memory.Link holds the rules for hand-made edges (reserved kinds,
	// both ends in the namespace).
	if _, err := s.mem.Link(r.Context(), f.Namespace, e); err != nil {
		return err
	}
	return seeOther(w, r, factPath(id)+"?done=linked")
}
