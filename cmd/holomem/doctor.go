package main

import (
	"context"
	"fmt"
	"io"
	"slices"
	"time"

	"github.com/spf13/cobra"

	"github.com/holomem/holomem"
	"github.com/holomem/holomem/backup"
	"github.com/holomem/holomem/index"
	"github.com/holomem/holomem/retrieve"
)

// doctorReport is what `holomem doctor` finds.
type doctorReport struct {
	DB             string                 `json:"db"`
	SchemaVersion  int                    `json:"schema_version"`
	Facts          int                    `json:"facts"`
	Entities       int                    `json:"entities"`
	Edges          map[string]int         `json:"edges"`
	Channels       []holomem.Channel      `json:"channels"`
	Model          string                 `json:"model"`
	ModelStatus    string                 `json:"model_status"`
	WithoutVectors int                    `json:"facts_without_vectors"`
	WithoutHRR     int                    `json:"facts_without_hrr"`
	EdgeActivity   []holomem.EdgeActivity `json:"edge_activity,omitempty"`
	Stale          []holomem.StaleAnchor  `json:"stale_anchors,omitempty"`
	Extra          map[string]any         `json:"extra,omitempty"`
	Warnings       []string               `json:"warnings,omitempty"`
}

func (a *app) doctorCmd() *cobra.Command {
	return &cobra.Command{
		Use: "doctor", Short: "Check the store: schema, counts, vectors, live channels, edge liveness", GroupID: "admin", Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			ctx := cmd.Context()
			a.useGraph = true
			m, err := a.memory(ctx)
			if err != nil {
				return err
			}
			r, err := a.diagnose(ctx, m)
			if err != nil {
				return err
			}
			return a.out(r, func(w io.Writer) { printDoctor(w, r) })
		},
	}
}

// diagnose turns the memory's diagnosis into doctor's report: the doctor
// command prints it and the web UI's status page shows it. The checks and
// thresholds are the domain's ([retrieve.Memory.Diagnose]); this adds what
// only the binary knows (the database path, how to get a model, backups).
func (a *app) diagnose(ctx context.Context, m *retrieve.Memory) (*doctorReport, error) {
	d, err := m.Diagnose(ctx)
	if err != nil {
		return nil, err
	}
	st := d.Stats
	r := &doctorReport{
		DB: a.dbPath, SchemaVersion: st.SchemaVersion, Facts: st.Facts, Entities: st.Entities,
		Edges: st.Edges, Channels: d.Channels, Model: a.modelName, WithoutVectors: d.WithoutVectors,
		WithoutHRR: st.WithoutHRR, EdgeActivity: st.EdgeActivity, Stale: d.Stale, Extra: map[string]any{},
	}
	if d.Model != "" {
		r.ModelStatus = "installed: " + d.Model
	} else if a.modelErr != nil {
		r.ModelStatus = a.modelBrokenHint()
	} else {
		r.ModelStatus = a.modelMissingHint()
	}
	for _, f := range d.Findings {
		msg := f.Message
		if f.Namespace != "" {
			msg = "namespace " + f.Namespace + ": " + msg
		}
		r.Warnings = append(r.Warnings, msg)
	}
	if m.Embedder() != nil {
		r.Extra["vector_index"] = d.Index
	}
	if d.Hooks != nil {
		r.Extra["hook_24h"] = d.Hooks
	}
	r.Extra["last_backup"] = backup.Age(ctx, m.Store())
	r.Extra["hook_server"] = a.hookServerStatus(ctx)
	if w, ok := holomem.As[holomem.WALNoticer](m.Store()); ok {
		if n, err := w.WALNotice(ctx); err == nil && n != "" {
			r.Warnings = append(r.Warnings, n+"; compare with the last backup, then `holomem verify --clear-wal-notice`")
		}
	}
	return r, nil
}

func printDoctor(w io.Writer, r *doctorReport) {
	fmt.Fprintf(w, "database:  %s (schema %d)\n", r.DB, r.SchemaVersion)
	fmt.Fprintf(w, "facts:     %d, entities %d\n", r.Facts, r.Entities)
	ch := make([]string, len(r.Channels))
	for i, c := range r.Channels {
		ch[i] = string(c)
	}
	fmt.Fprintf(w, "channels:  %v\n", ch)
	fmt.Fprintf(w, "model:     %s\n", r.ModelStatus)
	fmt.Fprintf(w, "without vectors: %d, without hrr: %d\n", r.WithoutVectors, r.WithoutHRR)
	printCounts(w, "edges", r.Edges)
	if len(r.EdgeActivity) > 0 {
		fmt.Fprintln(w, "edge liveness (kind/origin: last 7d, 30d before, older):")
		for _, e := range r.EdgeActivity {
			mark := ""
			if e.Stalled {
				mark = "  STALLED"
			}
			fmt.Fprintf(w, "  %-28s %5d %5d %7d%s\n", string(e.Kind)+"/"+e.Origin, e.Last7d, e.Prev30d, e.Older, mark)
		}
	}
	for _, s := range r.Stale {
		fmt.Fprintf(w, "stale: #%d %s (%s)\n", s.ID, s.Path, s.Reason)
	}
	keys := make([]string, 0, len(r.Extra))
	for k := range r.Extra {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	for _, k := range keys {
		switch v := r.Extra[k].(type) {
		case []index.Status:
			for _, st := range v {
				rec := "no canary yet"
				if st.Recall >= 0 {
					rec = fmt.Sprintf("canary recall@10 %.3f", st.Recall)
				}
				fmt.Fprintf(w, "vector index %s: %d vectors, mode %s, graph %d nodes / %d edges, delta %d, %s\n",
					st.Namespace, st.Vectors, st.Mode, st.Nodes, st.Edges, st.Delta, rec)
			}
		case *holomem.InjectionStats:
			fmt.Fprintf(w, "prompt hook, last 24 h: %d runs: %d injected, %d empty, %d timed out, %d failed (p50 %s, p99 %s)\n",
				v.Total, v.Outcomes[hookInjected], v.Outcomes[hookEmpty], v.Outcomes[hookTimeout], v.Outcomes[hookFailed],
				v.P50.Round(time.Millisecond), v.P99.Round(time.Millisecond))
		default:
			fmt.Fprintf(w, "%s: %v\n", k, v)
		}
	}
	for _, wn := range r.Warnings {
		fmt.Fprintf(w, "warning: %s\n", wn)
	}
	if len(r.Warnings) == 0 {
		fmt.Fprintln(w, "ok")
	}
}
