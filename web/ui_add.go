package web

import (
	"context"
	"fmt"
	"net/http"
	"strings"

	"github.com/holomem/holomem"
)

// previewer is implemented by memories that can run write-time hygiene
// without writing (retrieve.Memory does): the add page shows its report
// before the fact is saved.
type previewer interface {
	Preview(ctx context.Context, f *holomem.Fact) (*holomem.Remembered, error)
}

type addData struct {
	Content, Category, Tags string
	// Checked is set once the report was computed for this content.
	Checked bool
	Report  *holomem.Remembered
	// Saved is the fact just stored when the report still has findings.
	Saved *holomem.Fact
}

func (s *Server) handleAddPage(w http.ResponseWriter, r *http.Request, p *page) error {
	p.Title, p.Nav, p.Data = "Add a fact", "add", &addData{Category: holomem.DefaultCategory}
	return s.render(w, r, "add", p)
}

// handleAddForm either checks the fact (action=check: near-duplicates and
// likely contradictions, nothing written) or saves it (action=save).
func (s *Server) handleAddForm(w http.ResponseWriter, r *http.Request, p *page) error {
	s.parseForm(r) //nolint:errcheck // page reported a broken body before the handler ran
	if ns := strings.TrimSpace(s.formValue(r, "namespace")); ns != "" {
		p.Namespace = ns
	}
	d := &addData{
		Content:  strings.ReplaceAll(s.formValue(r, "content"), "\r\n", "\n"),
		Category: strings.TrimSpace(s.formValue(r, "category")),
		Tags:     s.formValue(r, "tags"),
	}
	p.Title, p.Nav, p.Data = "Add a fact", "add", d
	f := &holomem.Fact{Namespace: p.Namespace, Content: d.Content, Category: d.Category,
		Tags: holomem.NormalizeTags(strings.Split(d.Tags, ",")), Source: "web"}
	if s.formValue(r, "action") != "save" {
		rep, err := s.preview(r.Context(), f)
		if err != nil {
			return err
		}
		d.Checked, d.Report = true, rep
		return s.render(w, r, "add", p)
	}
	rem, err := s.mem.Remember(r.Context(), f)
	if err != nil {
		return fmt.Errorf("remember: %w", err)
	}
	if !rem.Created {
		return seeOther(w, r, factPath(rem.Fact.ID)+"?done=existing")
	}
	if len(rem.NearDuplicates)+len(rem.Contradictions) == 0 {
		return seeOther(w, r, factPath(rem.Fact.ID)+"?done=created")
	}
	// Saved, with findings: show them next to the new fact so the person
	// can supersede or forget right away.
	d.Checked, d.Report, d.Saved = true, rem, rem.Fact
	return s.render(w, r, "add", p)
}

// preview runs the write-time checks without writing. A memory without
// Preview gets the closest recall hits as near-duplicate candidates.
func (s *Server) preview(ctx context.Context, f *holomem.Fact) (*holomem.Remembered, error) {
	f.Normalize()
	if err := f.Validate(); err != nil {
		return nil, err
	}
	if pv, ok := s.mem.(previewer); ok {
		rep, err := pv.Preview(ctx, f)
		if err != nil {
			return nil, fmt.Errorf("check: %w", err)
		}
		return rep, nil
	}
	res, err := s.mem.Recall(ctx, holomem.Query{Text: f.Content, Namespace: f.Namespace, Limit: 5, NoTouch: true})
	if err != nil {
		return nil, fmt.Errorf("check: %w", err)
	}
	return &holomem.Remembered{Fact: f, NearDuplicates: res.Hits}, nil
}
