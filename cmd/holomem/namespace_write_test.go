package main

import (
	"strings"
	"testing"
)

// TestCLI_WritesStayInNamespace: every CLI write names facts of its own
// namespace only. `-n teamB update 1` once changed teamA's fact #1 (HTTP
// and MCP already refused); each write here must exit 3 (not found), say
// where the fact is, and leave teamA's facts exactly as they were.
func TestCLI_WritesStayInNamespace(t *testing.T) {
	c := newCLI(t)
	c.ok("-n", "teamA", "add", "Team A deploys with Ansible from the ops repository")
	c.ok("-n", "teamA", "add", "Team A reviews every pull request twice")
	c.ok("-n", "teamB", "add", "Team B ships on Fridays")
	before := normalizeExport(c.ok("-n", "teamA", "export"))

	for _, args := range [][]string{
		{"update", "1", "--content", "hijacked"},
		{"update", "1", "--trust", "0.01"},
		{"feedback", "1", "--unhelpful"},
		{"supersede", "1", "2"},
		{"supersede", "1", "3"},
		{"supersede", "3", "1"},
		{"link", "1", "2", "--kind", "causal"},
		{"link", "3", "1", "--kind", "causal"},
		{"unlink", "1", "2", "--kind", "causal"},
		{"forget", "1"},
		{"forget", "2", "3"},
	} {
		out, errs, code := c.run("", append([]string{"-n", "teamB"}, args...)...)
		if code != 3 {
			t.Errorf("-n teamB %v: exit %d, want 3 (not found)\nstdout: %s\nstderr: %s", args, code, out, errs)
			continue
		}
		if !strings.Contains(errs, `namespace "teamA"`) {
			t.Errorf("-n teamB %v: the error does not say where the fact is: %s", args, errs)
		}
	}
	if after := normalizeExport(c.ok("-n", "teamA", "export")); after != before {
		t.Fatalf("teamA changed through -n teamB:\nbefore: %s\nafter:  %s", before, after)
	}
	// teamB's own fact was deleted by `forget 2 3`: the ids that are its own
	// are still deleted, as forget promises.
	if out, _, code := c.run("", "-n", "teamB", "get", "3"); code != 3 {
		t.Errorf("teamB's #3 survived forget 2 3: exit %d, %s", code, out)
	}
	// In the right namespace the same writes work.
	c.ok("-n", "teamA", "feedback", "1", "--helpful")
	c.ok("-n", "teamA", "link", "1", "2", "--kind", "causal")
	c.ok("-n", "teamA", "supersede", "1", "2")
}
