package mcpserver

import (
	"context"
	"fmt"

	"github.com/holomem/holomem"
)

// DefaultSource is the source recorded on facts remembered over MCP when
// the call does not name one.
const DefaultSource = "agent"

// RememberInput are the arguments of the remember tool.
type RememberInput struct {
	Content     string   `json:"content" jsonschema:"one short self-contained statement (who/what/why)"`
	Category    string   `json:"category,omitempty" jsonschema:"user_pref, project, tool, general (default) or your own"`
	Tags        []string `json:"tags,omitempty"`
	Source      string   `json:"source,omitempty" jsonschema:"default agent"`
	ExternalKey string   `json:"external_key,omitempty" jsonschema:"unique key (e.g. github:owner/repo#123); the same key returns the existing fact"`
	Namespace   string   `json:"namespace,omitempty"`
}

// RememberOutput is what the remember tool returns.
type RememberOutput struct {
	ID      int64     `json:"id"`
	Created bool      `json:"created"`
	Fact    *FactView `json:"fact"`
	// NearDuplicates and Contradictions come from write-time hygiene.
	NearDuplicates []HitView `json:"near_duplicates,omitempty"`
	Contradictions []HitView `json:"contradictions,omitempty"`
	// Risks flag content that reads as instructions to a model: it is
	// stored as given and shown quoted.
	Risks []string `json:"risks,omitempty"`
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
	out := &RememberOutput{Created: r.Created, Fact: factView(r.Fact), Risks: r.Risks,
		NearDuplicates: hitViews(r.NearDuplicates, viewOpts{}), Contradictions: hitViews(r.Contradictions, viewOpts{})}
	if len(out.NearDuplicates) == 0 {
		out.NearDuplicates = nil
	}
	if len(out.Contradictions) == 0 {
		out.Contradictions = nil
	}
	if r.Fact != nil {
		out.ID = r.Fact.ID
	}
	return out, nil
}

// IDInput names one fact.
type IDInput struct {
	ID        int64  `json:"id"`
	Namespace string `json:"namespace,omitempty"`
}

// UpdateInput are the arguments of the update tool; omitted fields stay.
type UpdateInput struct {
	ID        int64     `json:"id"`
	Content   *string   `json:"content,omitempty" jsonschema:"new content (restarts the fact's age)"`
	Category  *string   `json:"category,omitempty"`
	Tags      *[]string `json:"tags,omitempty" jsonschema:"replace the tags"`
	Source    *string   `json:"source,omitempty"`
	Namespace string    `json:"namespace,omitempty"`
}

// FactOutput is a single fact, its content cut to a snippet.
type FactOutput struct {
	Fact *FactView `json:"fact"`
}

// factOutput is the answer of update and feedback.
func factOutput(f *holomem.Fact) *FactOutput {
	return &FactOutput{Fact: factView(f)}
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
	ID        int64  `json:"id"`
	Helpful   bool   `json:"helpful"`
	Namespace string `json:"namespace,omitempty"`
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
	Old       int64  `json:"old" jsonschema:"the fact no longer true"`
	New       int64  `json:"new" jsonschema:"the fact replacing it"`
	Namespace string `json:"namespace,omitempty"`
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
