package mcpserver

import (
	"context"
	"fmt"
	"slices"

	"github.com/holomem/holomem"
	"github.com/holomem/holomem/text"
)

// DefaultSource is the source recorded on facts remembered over MCP when
// the call does not name one.
const DefaultSource = "agent"

// RememberInput are the arguments of the remember tool.
type RememberInput struct {
	Content     string   `json:"content" jsonschema:"the fact: one short self-contained statement (who/what/why), up to 256 KiB"`
	Category    string   `json:"category,omitempty" jsonschema:"kind of fact: user_pref, project, tool, general (default) or your own label"`
	Tags        []string `json:"tags,omitempty" jsonschema:"optional labels, lower-cased; a leading # is dropped"`
	Source      string   `json:"source,omitempty" jsonschema:"who or what the fact came from (default agent)"`
	ExternalKey string   `json:"external_key,omitempty" jsonschema:"optional unique key such as github:owner/repo#123; remembering the same key again returns the existing fact"`
	Namespace   string   `json:"namespace,omitempty" jsonschema:"memory namespace (default: the server's)"`
}

// RememberOutput is what the remember tool returns.
type RememberOutput struct {
	ID      int64         `json:"id" jsonschema:"id of the stored fact (or of the existing identical fact)"`
	Created bool          `json:"created" jsonschema:"false when the same content was already remembered"`
	Fact    *holomem.Fact `json:"fact"`
	// NearDuplicates and Contradictions come from write-time hygiene.
	NearDuplicates []holomem.Hit `json:"near_duplicates,omitempty" jsonschema:"facts saying nearly the same thing"`
	Contradictions []holomem.Hit `json:"contradictions,omitempty" jsonschema:"facts about the same entities with different content; call supersede if the new fact replaces one"`
	// Risks flag content that reads as instructions to a model: it is
	// stored as given and shown quoted.
	Risks []string `json:"risks,omitempty" jsonschema:"why the content reads as instructions to a model (stored as given, shown quoted as data)"`
}

func (s *Server) remember(ctx context.Context, in RememberInput) (*RememberOutput, error) {
	src := in.Source
	if src == "" {
		src = DefaultSource
	}
	f := &holomem.Fact{
		Namespace:   s.namespace(in.Namespace),
		Content:     in.Content,
		Category:    in.Category,
		Tags:        in.Tags,
		Source:      src,
		ExternalKey: in.ExternalKey,
	}
	r, err := s.mem.Remember(ctx, f)
	if err != nil {
		return nil, fmt.Errorf("remember: %w", err)
	}
	fact, _ := screen(slim(r.Fact))
	out := &RememberOutput{Created: r.Created, Fact: fact, Risks: r.Risks,
		NearDuplicates: slimHits(r.NearDuplicates), Contradictions: slimHits(r.Contradictions)}
	if r.Fact != nil {
		out.ID = r.Fact.ID
	}
	return out, nil
}

// IDInput names one fact.
type IDInput struct {
	ID        int64  `json:"id" jsonschema:"fact id (from remember or recall)"`
	Namespace string `json:"namespace,omitempty" jsonschema:"memory namespace (default: the server's)"`
}

// GetOutput is what the get tool returns.
type GetOutput struct {
	Fact *holomem.Fact `json:"fact"`
	// Risks flag content that reads as instructions to a model; the
	// content is then shown quoted.
	Risks []string        `json:"risks,omitempty"`
	Edges []*holomem.Edge `json:"edges,omitempty" jsonschema:"links to and from the fact (causal, temporal, supersedes, user kinds); the vector index's own edges are left out"`
}

func (s *Server) get(ctx context.Context, in IDInput) (*GetOutput, error) {
	f, err := s.factIn(ctx, s.namespace(in.Namespace), in.ID)
	if err != nil {
		return nil, fmt.Errorf("get: %w", err)
	}
	edges, err := s.store.FindEdges(ctx, holomem.EdgeFilter{FactID: f.ID, Limit: holomem.MaxLimit})
	if err != nil {
		return nil, fmt.Errorf("get %d: edges: %w", f.ID, err)
	}
	// The vector index's edges are structure, not meaning: they would only
	// cost the agent context.
	edges = slices.DeleteFunc(edges, func(e *holomem.Edge) bool {
		return e.Origin == holomem.OriginHNSW || holomem.IsHNSWKind(e.Kind)
	})
	out := &GetOutput{Edges: edges}
	out.Fact, out.Risks = screen(slim(f))
	return out, nil
}

// UpdateInput are the arguments of the update tool; omitted fields stay.
type UpdateInput struct {
	ID        int64     `json:"id" jsonschema:"fact id"`
	Content   *string   `json:"content,omitempty" jsonschema:"new content (restarts the fact's age)"`
	Category  *string   `json:"category,omitempty" jsonschema:"new category"`
	Tags      *[]string `json:"tags,omitempty" jsonschema:"new tags, replacing the old ones"`
	Source    *string   `json:"source,omitempty" jsonschema:"new source"`
	Namespace string    `json:"namespace,omitempty" jsonschema:"memory namespace (default: the server's)"`
}

// FactOutput is a single fact.
type FactOutput struct {
	Fact *holomem.Fact `json:"fact"`
	// Risks flag content that reads as instructions to a model; the
	// content is then shown quoted.
	Risks []string `json:"risks,omitempty"`
}

// factOutput screens f for the answer of update and feedback.
func factOutput(f *holomem.Fact) *FactOutput {
	out := &FactOutput{}
	out.Fact, out.Risks = screen(slim(f))
	return out
}

func (s *Server) update(ctx context.Context, in UpdateInput) (*FactOutput, error) {
	if _, err := s.factIn(ctx, s.namespace(in.Namespace), in.ID); err != nil {
		return nil, fmt.Errorf("update: %w", err)
	}
	upd := holomem.FactUpdate{Content: in.Content, Category: in.Category, Tags: in.Tags, Source: in.Source}
	if in.Content == nil && in.Category == nil && in.Tags == nil && in.Source == nil {
		return nil, fmt.Errorf("update %d: %w: give at least one of content, category, tags, source", in.ID, holomem.ErrInvalid)
	}
	f, err := s.mem.Update(ctx, in.ID, upd)
	if err != nil {
		return nil, fmt.Errorf("update %d: %w", in.ID, err)
	}
	return factOutput(f), nil
}

// ForgetOutput confirms a deletion.
type ForgetOutput struct {
	ID      int64 `json:"id"`
	Deleted bool  `json:"deleted"`
}

func (s *Server) forget(ctx context.Context, in IDInput) (*ForgetOutput, error) {
	if _, err := s.factIn(ctx, s.namespace(in.Namespace), in.ID); err != nil {
		return nil, fmt.Errorf("forget: %w", err)
	}
	if err := s.mem.Forget(ctx, in.ID); err != nil {
		return nil, fmt.Errorf("forget %d: %w", in.ID, err)
	}
	return &ForgetOutput{ID: in.ID, Deleted: true}, nil
}

// FeedbackInput are the arguments of the feedback tool.
type FeedbackInput struct {
	ID        int64  `json:"id" jsonschema:"fact id"`
	Helpful   bool   `json:"helpful" jsonschema:"true if the fact helped, false if it was wrong or useless"`
	Namespace string `json:"namespace,omitempty" jsonschema:"memory namespace (default: the server's)"`
}

func (s *Server) feedback(ctx context.Context, in FeedbackInput) (*FactOutput, error) {
	if _, err := s.factIn(ctx, s.namespace(in.Namespace), in.ID); err != nil {
		return nil, fmt.Errorf("feedback: %w", err)
	}
	f, err := s.mem.Feedback(ctx, in.ID, in.Helpful)
	if err != nil {
		return nil, fmt.Errorf("feedback %d: %w", in.ID, err)
	}
	return factOutput(f), nil
}

// SupersedeInput are the arguments of the supersede tool.
type SupersedeInput struct {
	Old       int64  `json:"old" jsonschema:"id of the fact that is no longer true"`
	New       int64  `json:"new" jsonschema:"id of the fact that replaces it"`
	Namespace string `json:"namespace,omitempty" jsonschema:"memory namespace (default: the server's)"`
}

// SupersedeOutput confirms a supersession.
type SupersedeOutput struct {
	Old        int64 `json:"old"`
	New        int64 `json:"new"`
	Superseded bool  `json:"superseded"`
}

func (s *Server) supersede(ctx context.Context, in SupersedeInput) (*SupersedeOutput, error) {
	ns := s.namespace(in.Namespace)
	for _, id := range []int64{in.Old, in.New} {
		if _, err := s.factIn(ctx, ns, id); err != nil {
			return nil, fmt.Errorf("supersede: %w", err)
		}
	}
	if err := s.mem.Supersede(ctx, in.Old, in.New); err != nil {
		return nil, err // it names the operation and the ids
	}
	return &SupersedeOutput{Old: in.Old, New: in.New, Superseded: true}, nil
}

// slim returns a copy of f without its embedding: a vector of hundreds of
// floats is useless to a model and costs context.
func slim(f *holomem.Fact) *holomem.Fact {
	if f == nil || (len(f.Embedding) == 0 && f.HRR == nil) {
		return f
	}
	c := *f
	c.Embedding = nil
	c.HRR = nil
	return &c
}

// slimHits strips embeddings from the facts of hits and screens them (see
// screen): a flagged hit carries its risks and its content quoted.
func slimHits(hs []holomem.Hit) []holomem.Hit {
	for i := range hs {
		hs[i].Fact, hs[i].Risks = screen(slim(hs[i].Fact))
	}
	return hs
}

// screen checks a fact's content for instructions to a model (memory
// poisoning). A flagged fact comes back as a copy whose content is
// rendered as quoted data (text.QuoteData: invisible characters and '<'
// escaped), the way the prompt hook shows it, with the risks: a tool
// result goes into the agent's context like a prompt does, and a stored
// "ignore previous instructions" must arrive as data. Clean facts are
// returned as they are; `holomem get` on the CLI shows the stored text.
func screen(f *holomem.Fact) (*holomem.Fact, []string) {
	if f == nil {
		return nil, nil
	}
	risks := text.InstructionRisks(f.Content)
	if len(risks) == 0 {
		return f, nil
	}
	c := *f
	c.Content = text.QuoteData(f.Content)
	return &c, risks
}
