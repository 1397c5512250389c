package retrieve

import (
	"context"
	"fmt"

	"github.com/holomem/holomem"
	"github.com/holomem/holomem/anchor"
	"github.com/holomem/holomem/text"
)

// Diagnose implements [holomem.Memory.Diagnose]: every check doctor runs,
// judged here with the domain's thresholds, so the CLI (or any other door)
// only prints the findings. It loads the vector index and runs the recall
// canary on every namespace searched through HNSW.
func (m *Memory) Diagnose(ctx context.Context) (*holomem.Diagnosis, error) {
	st, err := m.store.Stats(ctx, "")
	if err != nil {
		return nil, fmt.Errorf("diagnose: %w", err)
	}
	d := &holomem.Diagnosis{Stats: st, Channels: m.Channels(), WithoutVectors: st.Facts}
	if m.emb != nil {
		d.Model = m.emb.ModelID()
		d.WithoutVectors = st.Facts - st.Models[d.Model]
		if d.WithoutVectors > 0 {
			addFinding(d, "vectors", "", "%d facts have no vector of %s: run `holomem backfill`", d.WithoutVectors, d.Model)
		}
	}
	if st.WithoutHRR > 0 {
		addFinding(d, "hrr", "", "%d facts have no HRR vector: run `holomem backfill`", st.WithoutHRR)
	}
	if _, ok := holomem.As[holomem.EntityRelinker](m.store); ok && st.Facts > 0 {
		if got, err := m.store.Meta(ctx, holomem.MetaEntityFingerprint); err != nil || got != text.EntityFingerprint() {
			addFinding(d, "entities", "", "entities were derived by an older holomem (lower-case names such as nginx and Russian name forms are missing): run `holomem backfill`")
		}
	}
	for _, ea := range st.EdgeActivity {
		if ea.Stalled {
			d.Findings = append(d.Findings, holomem.Finding{Check: "edge_liveness", Message: ea.Comments})
		}
	}
	if err := m.diagnoseAnchors(ctx, d); err != nil {
		return nil, err
	}
	if err := m.diagnoseIndex(ctx, d); err != nil {
		return nil, err
	}
	hooks, err := m.store.InjectionStats(ctx, m.opts.Now().Add(-holomem.DiagnoseWindow))
	if err != nil {
		return nil, fmt.Errorf("diagnose: %w", err)
	}
	if hooks.Total > 0 {
		d.Hooks = hooks
		if late := hooks.Outcomes[holomem.InjectionTimeout]; float64(late) > holomem.HookLateShare*float64(hooks.Total) {
			addFinding(d, "hook", "", "the prompt hook missed its deadline %d of %d times in 24 h: raise --deadline or check the machine's load", late, hooks.Total)
		}
	}
	return d, nil
}

// diagnoseAnchors lists the anchored facts whose files changed or vanished
// and counts those that cannot be checked (no anchor root, or a path an
// older version wrote outside it).
func (m *Memory) diagnoseAnchors(ctx context.Context, d *holomem.Diagnosis) error {
	var after int64
	for {
		facts, _, err := m.store.FindFacts(ctx, holomem.FactFilter{AfterID: after, Limit: 1000})
		if err != nil {
			return fmt.Errorf("diagnose anchors: %w", err)
		}
		if len(facts) == 0 {
			break
		}
		for _, f := range facts {
			after = f.ID
			if f.Anchor == nil {
				continue
			}
			if m.anchors.Checkable(f.Anchor) != nil {
				d.UncheckedAnchors++
				continue
			}
			if why := m.anchors.State(ctx, f.Anchor); why != "" {
				d.Stale = append(d.Stale, holomem.StaleAnchor{ID: f.ID, Path: f.Anchor.Path, Reason: why})
			}
		}
	}
	if len(d.Stale) > 0 {
		addFinding(d, "anchors", "", "%d anchored facts describe files that changed or vanished: review them (holomem get ID), then update or forget them", len(d.Stale))
	}
	if d.UncheckedAnchors > 0 {
		why := "their paths are not inside the anchor root " + m.anchors.Root() + " (absolute paths from an older holomem): update the anchors or forget the facts"
		if m.anchors.Root() == "" {
			why = anchor.ErrNoRoot.Error()
		}
		addFinding(d, "anchors", "", "%d anchored facts could not be checked: %s", d.UncheckedAnchors, why)
	}
	return nil
}

// diagnoseIndex describes every namespace's vector index after running the
// canary (ANN against exact on a sample, recorded) where the graph is used.
func (m *Memory) diagnoseIndex(ctx context.Context, d *holomem.Diagnosis) error {
	if m.sem == nil {
		return nil
	}
	idx, err := m.sem.Status(ctx)
	if err != nil {
		return fmt.Errorf("diagnose: %w", err)
	}
	for i, st := range idx {
		if st.Nodes > 0 && st.Mode == holomem.IndexHNSW {
			if c, err := m.sem.Canary(ctx, st.Namespace, holomem.DiagnoseCanarySample); err == nil {
				idx[i].Recall, idx[i].CanaryAt = c.Recall, c.At
				if c.Tripped {
					idx[i].Mode = holomem.IndexFallback
					addFinding(d, "vector_index", st.Namespace, "ANN recall@10 %.2f < %.2f, searching exactly: run `holomem graph build`", c.Recall, c.Min)
				}
			}
		}
		for _, n := range idx[i].Notes {
			d.Findings = append(d.Findings, holomem.Finding{Check: "vector_index", Namespace: st.Namespace, Message: n})
		}
	}
	d.Index = idx
	return nil
}

// addFinding appends a finding to d.
func addFinding(d *holomem.Diagnosis, check, namespace, format string, args ...any) {
	d.Findings = append(d.Findings, holomem.Finding{Check: check, Namespace: namespace, Message: fmt.Sprintf(format, args...)})
}
