package main

import (
	"context"
	"fmt"
	"io"
	"slices"
	"time"

	"github.com/spf13/cobra"

	"github.com/holomem/holomem"
	"github.com/holomem/holomem/anchor"
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
	Stale          []staleFact            `json:"stale_anchors,omitempty"`
	Extra          map[string]any         `json:"extra,omitempty"`
	Warnings       []string               `json:"warnings,omitempty"`
}

type staleFact struct {
	ID     int64  `json:"id"`
	Path   string `json:"path"`
	Reason string `json:"reason"`
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
			for _, x := range a.doctorExtras {
				if err := x(cmd, r); err != nil {
					return err
				}
			}
			return a.out(r, func(w io.Writer) { printDoctor(w, r) })
		},
	}
}

// diagnose computes doctor's report (without the command's extras): the
// doctor command prints it and the web UI's status page shows it.
func (a *app) diagnose(ctx context.Context, m *retrieve.Memory) (*doctorReport, error) {
	s := m.Store()
	st, err := s.Stats(ctx, "")
	if err != nil {
		return nil, err
	}
	r := &doctorReport{
		DB: a.dbPath, SchemaVersion: st.SchemaVersion, Facts: st.Facts, Entities: st.Entities,
		Edges: st.Edges, Channels: m.Channels(), Model: a.modelName, WithoutHRR: st.WithoutHRR,
		EdgeActivity: st.EdgeActivity, Extra: map[string]any{},
	}
	if emb := m.Embedder(); emb != nil {
		r.ModelStatus = "installed: " + emb.ModelID()
		r.WithoutVectors = st.Facts - st.Models[emb.ModelID()]
		if r.WithoutVectors > 0 {
			r.Warnings = append(r.Warnings, fmt.Sprintf("%d facts have no vector of %s: run `holomem backfill`", r.WithoutVectors, emb.ModelID()))
		}
	} else {
		r.ModelStatus = a.modelMissingHint()
		r.WithoutVectors = st.Facts
	}
	if r.WithoutHRR > 0 {
		r.Warnings = append(r.Warnings, fmt.Sprintf("%d facts have no HRR vector: run `holomem backfill`", r.WithoutHRR))
	}
	for _, ea := range st.EdgeActivity {
		if ea.Stalled {
			r.Warnings = append(r.Warnings, fmt.Sprintf("no %s edges from %q in the last 7 days (there were %d in the 30 days before): check the importer or the pattern that makes them", ea.Kind, ea.Origin, ea.Prev30d))
		}
	}
	stale, unchecked, err := a.staleAnchors(ctx, m)
	if err != nil {
		return nil, err
	}
	r.Stale = stale
	if len(stale) > 0 {
		r.Warnings = append(r.Warnings, fmt.Sprintf("%d anchored facts describe files that changed or vanished: review them (holomem get ID), then update or forget them", len(stale)))
	}
	if unchecked > 0 {
		why := "their paths are not inside the anchor root " + m.Anchors().Root() + " (absolute paths from an older holomem): update the anchors or forget the facts"
		if m.Anchors().Root() == "" {
			why = anchor.ErrNoRoot.Error()
		}
		r.Warnings = append(r.Warnings, fmt.Sprintf("%d anchored facts could not be checked: %s", unchecked, why))
	}
	if m.Embedder() != nil {
		idx, err := m.Index().Status(ctx)
		if err != nil {
			return nil, err
		}
		for i, st := range idx {
			if st.Nodes > 0 && st.Mode == index.ModeHNSW {
				// The canary: ANN against exact on a sample, recorded.
				if c, err := m.Index().Canary(ctx, st.Namespace, 100); err == nil {
					idx[i].Recall, idx[i].CanaryAt = c.Recall, c.At
					if c.Tripped {
						idx[i].Mode = index.ModeFallback
						r.Warnings = append(r.Warnings, fmt.Sprintf("namespace %s: ANN recall@10 %.2f < %.2f, searching exactly: run `holomem graph build`", st.Namespace, c.Recall, c.Min))
					}
				}
			}
			for _, n := range idx[i].Notes {
				r.Warnings = append(r.Warnings, "namespace "+st.Namespace+": "+n)
			}
		}
		r.Extra["vector_index"] = idx
	}
	hooks, err := s.InjectionStats(ctx, time.Now().Add(-24*time.Hour))
	if err != nil {
		return nil, err
	}
	if hooks.Total > 0 {
		r.Extra["hook_24h"] = hooks
		if late := hooks.Outcomes[hookTimeout]; late*10 > hooks.Total {
			r.Warnings = append(r.Warnings, fmt.Sprintf("the prompt hook missed its deadline %d of %d times in 24 h: raise --deadline or check the machine's load", late, hooks.Total))
		}
	}
	r.Extra["last_backup"] = backupAge(ctx, s)
	return r, nil
}

// staleAnchors lists the anchored facts whose files changed or vanished,
// and counts those that cannot be checked (no anchor root, or a path
// written by an older version outside it).
func (a *app) staleAnchors(ctx context.Context, m *retrieve.Memory) (stale []staleFact, unchecked int, err error) {
	var after int64
	for {
		facts, _, err := m.Store().FindFacts(ctx, holomem.FactFilter{AfterID: after, Limit: 1000})
		if err != nil {
			return nil, 0, err
		}
		if len(facts) == 0 {
			return stale, unchecked, nil
		}
		for _, f := range facts {
			after = f.ID
			if f.Anchor == nil {
				continue
			}
			if m.Anchors().Checkable(f.Anchor) != nil {
				unchecked++
				continue
			}
			if why := m.AnchorState(ctx, f.Anchor); why != "" {
				stale = append(stale, staleFact{ID: f.ID, Path: f.Anchor.Path, Reason: why})
			}
		}
	}
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
