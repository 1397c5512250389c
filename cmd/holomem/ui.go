package main

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/spf13/cobra"

	"github.com/holomem/holomem"
	"github.com/holomem/holomem/importer"
	"github.com/holomem/holomem/index"
	"github.com/holomem/holomem/retrieve"
	"github.com/holomem/holomem/web"
)

func (a *app) uiCmd() *cobra.Command {
	return &cobra.Command{
		Annotations: createsDB,
		Use:         "ui",
		Short:       "Open the web UI: serve on a free loopback port and print the URL",
		Long: `Runs 'holomem serve' on 127.0.0.1 with a free port and prints the URL to open
in a browser: search, read, edit, add, import and check the memory.`,
		GroupID: "agents", Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			// Exactly serve, on a port the system picks.
			srv := a.serveCmd()
			srv.SetContext(cmd.Context())
			if err := srv.Flags().Set("addr", "127.0.0.1:0"); err != nil {
				return err
			}
			return srv.RunE(srv, nil)
		},
	}
}

// webUI gives the web server the status page's findings (doctor's) and
// imports. The adapter stays thin: the web package only sees data.
func (a *app) webUI(opts *web.Options, m *retrieve.Memory) {
	opts.Status = func(ctx context.Context) (*web.Status, error) {
		r, err := a.diagnose(ctx, m)
		if err != nil {
			return nil, err
		}
		return doctorStatus(r), nil
	}
	opts.Import = func(ctx context.Context, req web.ImportRequest) (string, error) {
		o := importer.Options{Kind: req.Kind, Path: req.Path, Namespace: req.Namespace,
			Progress: func(_ string, done, _ int) { req.Progress(done) }}
		if req.Kind == "jsonl" {
			// The page's namespace field applies to every kind.
			o.Into = req.Namespace
		}
		rep, err := importer.Run(ctx, m, m.Store(), o)
		if rep == nil {
			// The upload's temporary path means nothing to the person.
			return "", &renamedError{msg: strings.ReplaceAll(err.Error(), req.Path, req.Name), err: err}
		}
		rep.Path = req.Name
		for i := range rep.Summary.Skips {
			if rep.Summary.Skips[i].Path == "" {
				// "issues.json:3: reason" rather than a bare "3: reason".
				rep.Summary.Skips[i].Path = req.Name
			}
		}
		var b strings.Builder
		printImport(&b, rep)
		if err == nil && rep.Records == 0 && rep.Summary.Skipped > 0 {
			// Not one record could be read: the file is not what its kind
			// says (a page of HTML saved as issues.json, a truncated export).
			err = fmt.Errorf("%w: no record of %s could be read as %s; the lines below say why", holomem.ErrInvalid, req.Name, importKindHelp(req.Kind))
		}
		return strings.TrimSpace(b.String()), err
	}
}

// renamedError is err with another message (the upload's file name in
// place of its temporary path); errors.Is still sees err's sentinel.
type renamedError struct {
	msg string
	err error
}

func (e *renamedError) Error() string { return e.msg }
func (e *renamedError) Unwrap() error { return e.err }

// importKindHelp names what an import kind expects, for error messages.
func importKindHelp(kind string) string {
	switch kind {
	case "github":
		return "GitHub JSON (the output of gh issue list --json ... or gh pr list --json ...)"
	case "jsonl":
		return "JSONL (the output of holomem export)"
	case "markdown":
		return "markdown notes"
	}
	return kind
}

// doctorStatus lays doctor's report out as the status page's sections.
func doctorStatus(r *doctorReport) *web.Status {
	st := &web.Status{Warnings: r.Warnings}
	ch := make([]string, len(r.Channels))
	for i, c := range r.Channels {
		ch[i] = string(c)
	}
	st.Sections = append(st.Sections, web.StatusSection{Title: "recall", Rows: []web.StatusRow{
		{Name: "database", Value: fmt.Sprintf("%s (schema %d)", r.DB, r.SchemaVersion)},
		{Name: "channels live", Value: strings.Join(ch, ", ")},
		{Name: "model", Value: r.ModelStatus, Warn: !slices.Contains(r.Channels, holomem.ChannelSemantic)},
		{Name: "facts without vectors", Value: fmt.Sprint(r.WithoutVectors), Warn: r.WithoutVectors > 0},
		{Name: "facts without HRR", Value: fmt.Sprint(r.WithoutHRR), Warn: r.WithoutHRR > 0},
	}})
	if idx, ok := r.Extra["vector_index"].([]index.Status); ok && len(idx) > 0 {
		sec := web.StatusSection{Title: "vector index"}
		for _, s := range idx {
			rec := "no canary yet"
			if s.Recall >= 0 {
				rec = fmt.Sprintf("canary recall@10 %.3f", s.Recall)
			}
			sec.Rows = append(sec.Rows, web.StatusRow{Name: s.Namespace,
				Value: fmt.Sprintf("%d vectors, mode %s, graph %d nodes / %d edges, delta %d, %s", s.Vectors, s.Mode, s.Nodes, s.Edges, s.Delta, rec),
				Warn:  s.Mode == index.ModeFallback})
		}
		st.Sections = append(st.Sections, sec)
	}
	if len(r.EdgeActivity) > 0 {
		sec := web.StatusSection{Title: "edge liveness (last 7 days / 30 days before / older)"}
		for _, e := range r.EdgeActivity {
			v := fmt.Sprintf("%d / %d / %d", e.Last7d, e.Prev30d, e.Older)
			if e.Stalled {
				v += " STALLED"
			}
			sec.Rows = append(sec.Rows, web.StatusRow{Name: string(e.Kind) + "/" + e.Origin, Value: v, Warn: e.Stalled})
		}
		st.Sections = append(st.Sections, sec)
	}
	stale := web.StatusSection{Title: "stale anchors"}
	for _, s := range r.Stale {
		stale.Rows = append(stale.Rows, web.StatusRow{Name: fmt.Sprintf("#%d %s", s.ID, s.Path), Value: s.Reason, Warn: true})
	}
	if len(stale.Rows) == 0 {
		stale.Rows = []web.StatusRow{{Name: "anchored facts", Value: "all current"}}
	}
	st.Sections = append(st.Sections, stale)
	hook := web.StatusSection{Title: "prompt hook, last 24 hours"}
	if h, ok := r.Extra["hook_24h"].(*holomem.InjectionStats); ok {
		hook.Rows = []web.StatusRow{
			{Name: "runs", Value: fmt.Sprint(h.Total)},
			{Name: "injected / empty", Value: fmt.Sprintf("%d / %d", h.Outcomes[hookInjected], h.Outcomes[hookEmpty])},
			{Name: "timed out / failed", Value: fmt.Sprintf("%d / %d", h.Outcomes[hookTimeout], h.Outcomes[hookFailed]), Warn: h.Outcomes[hookTimeout]*10 > h.Total},
			{Name: "latency p50 / p99", Value: fmt.Sprintf("%s / %s", h.P50.Round(time.Millisecond), h.P99.Round(time.Millisecond))},
		}
	} else {
		hook.Rows = []web.StatusRow{{Name: "runs", Value: "0 (the hook has not run)"}}
	}
	st.Sections = append(st.Sections, hook)
	return st
}
