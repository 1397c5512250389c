package retrieve_test

import (
	"testing"

	"github.com/holomem/holomem"
	"github.com/holomem/holomem/internal/testkit/testutil"
	"github.com/holomem/holomem/retrieve"
)

// TestRemember_HygieneClasses: the issue-9 cases, through Remember.
func TestRemember_HygieneClasses(t *testing.T) {
	tests := []struct {
		old, new string
		want     string
	}{
		{"Alice prefers dark mode", "Alice prefers light mode", "contradiction"},
		{"We deployed nginx with Ansible", "We deployed nginx with Ansible on all servers", "refinement"},
		{"The cluster runs 2 replicas", "The cluster runs 3 replicas", "contradiction"},
		{"We use Jenkins for CI", "We no longer use Jenkins for CI", "contradiction"},
		{"Alice prefers dark mode in the editor", "Alice prefers dark mode in her editor", "near-duplicate"},
		{"Alice lives in Berlin", "Alice likes tea", "none"},
	}
	for _, tc := range tests {
		t.Run(tc.want+"/"+tc.new, func(t *testing.T) {
			m, _ := testutil.MustOpenMemory(t, retrieve.Options{})
			remember(t, m, tc.old)
			r, err := m.Remember(t.Context(), &holomem.Fact{Content: tc.new})
			if err != nil {
				t.Fatal(err)
			}
			got := "none"
			switch {
			case len(r.Contradictions) > 0:
				got = "contradiction"
			case len(r.Refinements) > 0:
				got = "refinement"
			case len(r.NearDuplicates) > 0:
				got = "near-duplicate"
			}
			if got != tc.want || len(r.Contradictions)+len(r.Refinements)+len(r.NearDuplicates) > 1 {
				t.Errorf("got %s (%+v), want %s", got, r, tc.want)
			}
		})
	}
}
