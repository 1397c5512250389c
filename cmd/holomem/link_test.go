package main

import (
	"strings"
	"testing"
)

// TestCLI_LinkReservedKinds: the CLI refuses the vector index's edge kinds
// and origin, as HTTP and MCP do (the rule lives in holomem.Edge.ValidateLink).
func TestCLI_LinkReservedKinds(t *testing.T) {
	c := newCLI(t)
	c.ok("add", "the deploy broke on Friday")
	c.ok("add", "we pinned the nginx version")
	for _, tt := range []struct {
		name string
		args []string
	}{
		{"UpperLayerKind", []string{"link", "--kind", "hnsw_l3", "--origin", "hnsw", "1", "2"}},
		{"UpperLayerKindUserOrigin", []string{"link", "--kind", "hnsw_l1", "1", "2"}},
		{"IndexOrigin", []string{"link", "--kind", "similar_to", "--origin", "hnsw", "1", "2"}},
		{"UnlinkUpperLayerKind", []string{"unlink", "--kind", "hnsw_l2", "1", "2"}},
	} {
		t.Run(tt.name, func(t *testing.T) {
			_, errs, code := c.run("", tt.args...)
			if code != exitInvalid || !strings.Contains(errs, "reserved for the vector index") {
				t.Errorf("holomem %v: exit %d, stderr %q; want %d and a reserved-kind message", tt.args, code, errs, exitInvalid)
			}
		})
	}
	if out := c.ok("edges", "1"); !strings.Contains(out, "no edges") {
		t.Errorf("a refused link left an edge: %s", out)
	}
	if out := c.ok("link", "--kind", "causal", "1", "2"); !strings.Contains(out, "linked #1") {
		t.Errorf("link causal: %s", out)
	}
	if out := c.ok("unlink", "--kind", "causal", "1", "2"); !strings.Contains(out, "unlinked #1") {
		t.Errorf("unlink causal: %s", out)
	}
}
