package web

import (
	"context"
	"fmt"
	"net/http"
	"slices"
	"strconv"

	"github.com/holomem/holomem"
)

// Status is what the status page shows beyond the store's counts: the
// findings of `holomem doctor` as data (channels, model, vector index and
// canary, edge liveness, stale anchors, hook exposure). The command that
// starts the server fills it; see Options.Status.
type Status struct {
	Sections []StatusSection `json:"sections"`
	Warnings []string        `json:"warnings,omitempty"`
}

// StatusSection is one titled table of the status page.
type StatusSection struct {
	Title string      `json:"title"`
	Rows  []StatusRow `json:"rows"`
}

// StatusRow is one line of a section; Warn marks it as needing attention.
type StatusRow struct {
	Name  string `json:"name"`
	Value string `json:"value"`
	Warn  bool   `json:"warn,omitempty"`
}

type statusData struct {
	Status *Status
	Stats  *holomem.Stats
	Counts []StatusSection
}

// channeler is implemented by memories that report their live channels.
type channeler interface {
	Channels() []holomem.Channel
}

func (s *Server) handleStatusPage(w http.ResponseWriter, r *http.Request, p *page) error {
	d := &statusData{}
	if s.opts.Status != nil {
		st, err := s.opts.Status(r.Context())
		if err != nil {
			return fmt.Errorf("status: %w", err)
		}
		d.Status = st
	} else {
		d.Status = &Status{}
		if c, ok := s.mem.(channeler); ok {
			row := StatusRow{Name: "channels live"}
			for i, ch := range c.Channels() {
				if i > 0 {
					row.Value += ", "
				}
				row.Value += string(ch)
			}
			d.Status.Sections = append(d.Status.Sections, StatusSection{Title: "recall", Rows: []StatusRow{row}})
		}
	}
	st, err := s.store.Stats(r.Context(), "")
	if err != nil {
		return fmt.Errorf("stats: %w", err)
	}
	d.Stats = st
	d.Counts = countSections(st)
	p.Title, p.Nav, p.Data = "Status", "status", d
	return s.render(w, r, "status", p)
}

// countSections turns the store's count maps into sorted tables.
func countSections(st *holomem.Stats) []StatusSection {
	var out []StatusSection
	for _, c := range []struct {
		title string
		m     map[string]int
	}{{"facts per namespace", st.Namespaces}, {"facts per category", st.Categories}, {"edges per kind", st.Edges}, {"vectors per model", st.Models}} {
		if len(c.m) == 0 {
			continue
		}
		keys := make([]string, 0, len(c.m))
		for k := range c.m {
			keys = append(keys, k)
		}
		slices.Sort(keys)
		sec := StatusSection{Title: c.title}
		for _, k := range keys {
			sec.Rows = append(sec.Rows, StatusRow{Name: k, Value: strconv.Itoa(c.m[k])})
		}
		out = append(out, sec)
	}
	return out
}

// StatusFunc computes the status page's findings; see Options.Status.
type StatusFunc func(ctx context.Context) (*Status, error)
