package retrieve_test

import (
	"strings"
	"testing"
	"time"

	"github.com/holomem/holomem"
	"github.com/holomem/holomem/internal/testkit/testutil"
	"github.com/holomem/holomem/retrieve"
)

func TestMemory_Diagnose(t *testing.T) {
	ctx := t.Context()
	t.Run("OK", func(t *testing.T) {
		m, _ := testutil.MustOpenMemory(t, retrieve.Options{})
		remember(t, m, "we deploy nginx with Ansible")
		d, err := m.Diagnose(ctx)
		if err != nil {
			t.Fatal(err)
		}
		if len(d.Findings) != 0 || d.Stats.Facts != 1 || d.WithoutVectors != 1 || d.Model != "" || d.Hooks != nil {
			t.Errorf("diagnosis = %+v", d)
		}
	})
	t.Run("Findings", func(t *testing.T) {
		m, s := testutil.MustOpenMemory(t, retrieve.Options{})
		a := remember(t, m, "the deploy broke on Friday")
		b := remember(t, m, "we pinned the nginx version")
		old := time.Now().Add(-10 * 24 * time.Hour)
		if _, err := s.CreateEdges(ctx, []*holomem.Edge{{From: a.ID, To: b.ID, Kind: holomem.EdgeCausal, Weight: 1, Origin: "import:keyword", CreatedAt: old}}); err != nil {
			t.Fatal(err)
		}
		now := time.Now()
		for _, o := range []string{holomem.InjectionInjected, holomem.InjectionTimeout, holomem.InjectionTimeout} {
			if err := s.LogInjection(ctx, holomem.Injection{At: now, Namespace: holomem.DefaultNamespace, Outcome: o, Took: time.Second}); err != nil {
				t.Fatal(err)
			}
		}
		d, err := m.Diagnose(ctx)
		if err != nil {
			t.Fatal(err)
		}
		checks := map[string]string{}
		for _, f := range d.Findings {
			checks[f.Check] = f.Message
		}
		if msg := checks["edge_liveness"]; !strings.Contains(msg, `no causal edges from "import:keyword"`) {
			t.Errorf("edge liveness finding = %q (findings %+v)", msg, d.Findings)
		}
		if msg := checks["hook"]; !strings.Contains(msg, "missed its deadline 2 of 3") {
			t.Errorf("hook finding = %q", msg)
		}
		if d.Hooks == nil || d.Hooks.Total != 3 {
			t.Errorf("hooks = %+v", d.Hooks)
		}
	})
}
