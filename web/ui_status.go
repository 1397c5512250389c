package web

import (
	"context"
	"fmt"
	"net/http"
	"slices"
	"strconv"
	"strings"
	"time"

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
	Charts []*chart
}

// memoryStatus lays holomem.Status out as a status section.
func memoryStatus(ms *holomem.Status) *Status {
	ch := make([]string, len(ms.Channels))
	for i, c := range ms.Channels {
		ch[i] = string(c)
	}
	model := ms.Model
	if model == "" {
		model = "none (semantic channel off)"
	}
	sec := StatusSection{Title: "recall in " + ms.Namespace, Rows: []StatusRow{
		{Name: "channels live", Value: strings.Join(ch, ", ")},
		{Name: "model", Value: model, Warn: ms.Model == ""},
		{Name: "weights", Value: ms.Weights.Explain(false)},
	}}
	if ix := ms.Index; ix != nil {
		rec := "no canary yet"
		if ix.Recall >= 0 {
			rec = fmt.Sprintf("canary recall@10 %.3f", ix.Recall)
		}
		sec.Rows = append(sec.Rows, StatusRow{Name: "vector index",
			Value: fmt.Sprintf("%d vectors, mode %s, graph %d nodes, delta %d, %s", ix.Vectors, ix.Mode, ix.Nodes, ix.Delta, rec)})
	}
	return &Status{Sections: []StatusSection{sec}, Warnings: ms.Notes}
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
		// Without the command's doctor: what the memory reports itself.
		ms, err := s.mem.Status(r.Context(), p.Namespace)
		if err != nil {
			return fmt.Errorf("status: %w", err)
		}
		d.Status = memoryStatus(ms)
	}
	st, err := s.store.Stats(r.Context(), "")
	if err != nil {
		return fmt.Errorf("stats: %w", err)
	}
	d.Stats = st
	d.Counts = countSections(st)
	if d.Charts, err = s.statusCharts(r.Context(), p.Namespace, time.Now().UTC()); err != nil {
		return err
	}
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
