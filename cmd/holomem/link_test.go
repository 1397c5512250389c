package main

import (
	"encoding/json"
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
		{"IndexOrigin", []string{"link", "--kind", "similar_to", "--origin", "hnsw", "1", "2"}},
		{"IndexOriginOtherKind", []string{"link", "--kind", "causal", "--origin", "hnsw", "1", "2"}},
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

// TestCLI_SupersedeItselfOnePrefix: `supersede 3 3` is refused (exit 4)
// with one message that says why, once: neither the operation nor the
// sentinel's "holomem:" doubled, as text or as JSON.
func TestCLI_SupersedeItselfOnePrefix(t *testing.T) {
	c := newCLI(t)
	for _, f := range []string{"the cache holds 1 GB", "the deploy runs on Fridays", "Alice owns the cache"} {
		c.ok("add", f)
	}
	_, errs, code := c.run("", "supersede", "3", "3")
	if code != exitInvalid || !strings.Contains(errs, "cannot replace itself") {
		t.Errorf("supersede 3 3: exit %d, stderr %q; want %d saying a fact cannot replace itself", code, errs, exitInvalid)
	}
	if n := strings.Count(errs, "holomem:"); n != 1 {
		t.Errorf("stderr %q says holomem: %d times, want once", errs, n)
	}
	_, errs, _ = c.run("", "--json", "supersede", "3", "3")
	var e struct {
		Error string `json:"error"`
	}
	if err := json.Unmarshal([]byte(errs), &e); err != nil {
		t.Fatalf("--json error is not JSON: %v: %q", err, errs)
	}
	if strings.Contains(e.Error, "holomem:") || strings.Count(e.Error, "supersede 3 with 3") != 1 {
		t.Errorf("--json error %q: want the operation once and no holomem: prefix", e.Error)
	}
}
