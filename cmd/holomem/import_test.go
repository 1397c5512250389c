package main

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// gitIn runs git in dir with a fixed identity and date.
func gitIn(t *testing.T, dir string, args ...string) {
	t.Helper()
	cmd := exec.Command("git", append([]string{"-C", dir, "-c", "user.name=Test", "-c", "user.email=t@example.com", "-c", "commit.gpgsign=false"}, args...)...)
	cmd.Env = append(os.Environ(), "GIT_AUTHOR_DATE=2025-01-01T00:00:00Z", "GIT_COMMITTER_DATE=2025-01-01T00:00:00Z", "GIT_CONFIG_NOSYSTEM=1", "HOME="+dir)
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("git %v: %v\n%s", args, err, out)
	}
}

// TestCLI_ImportGitLocalOriginThenIssues: a clone whose origin is a local
// path links its commits to the GitHub issues, also when the issues are
// imported after the commits; commits with one message stay distinct; the
// progress line never says "of 0".
func TestCLI_ImportGitLocalOriginThenIssues(t *testing.T) {
	if _, err := exec.LookPath("git"); err != nil {
		t.Skip("git is not installed")
	}
	upstream := t.TempDir()
	gitIn(t, upstream, "init", "-q", "-b", "main")
	gitIn(t, upstream, "remote", "add", "origin", "git@github.com:acme/app.git")
	gitIn(t, upstream, "commit", "-q", "--allow-empty", "-m", "Fix typo")
	gitIn(t, upstream, "commit", "-q", "--allow-empty", "-m", "Fix typo")
	gitIn(t, upstream, "commit", "-q", "--allow-empty", "-m", "Evict before insert\n\nFixes #4409")
	clone := t.TempDir()
	gitIn(t, clone, "clone", "-q", upstream, ".")

	c := newCLI(t)
	out, errs, code := c.run("", "import", "git", clone)
	if code != 0 {
		t.Fatalf("import git: exit %d\n%s%s", code, out, errs)
	}
	if !strings.Contains(out, "3 new facts") || !strings.Contains(out, "1 links unresolved") || !strings.Contains(out, "holomem import github") {
		t.Errorf("import git output:\n%s", out)
	}
	if strings.Contains(errs, "/0") {
		t.Errorf("progress shows a total of 0:\n%q", errs)
	}

	issues := `[{"number":4409,"title":"Crash when the cache is full","body":"Stack trace","state":"CLOSED","url":"https://github.com/acme/app/issues/4409","createdAt":"2025-01-01T00:00:00Z"}]`
	path := filepath.Join(t.TempDir(), "issues.json")
	if err := os.WriteFile(path, []byte(issues), 0o600); err != nil {
		t.Fatal(err)
	}
	if out := c.ok("import", "github", path); !strings.Contains(out, "1 edges") {
		t.Errorf("import github after git made no edge to the earlier commit:\n%s", out)
	}
	var edges struct {
		Edges []struct {
			From int64  `json:"from"`
			To   int64  `json:"to"`
			Kind string `json:"kind"`
		} `json:"edges"`
	}
	c.json(&edges, "edges", "4")
	if len(edges.Edges) != 1 || edges.Edges[0].From != 4 || edges.Edges[0].To != 1 || edges.Edges[0].Kind != "causal" {
		t.Errorf("edges of the issue = %+v, want 4 -> 1 causal", edges.Edges)
	}
}

// TestCLI_ImportGitHubPageFails: a GitHub page saved from the browser
// holds no issue; the import exits with an error saying so (it exited 0
// having imported nothing).
func TestCLI_ImportGitHubPageFails(t *testing.T) {
	c := newCLI(t)
	page := filepath.Join(t.TempDir(), "page.html")
	os.WriteFile(page, []byte("<!DOCTYPE html>\n<html><head><title>Issues · acme/app</title></head>\n<body>list</body></html>\n"), 0o600)
	out, errs, code := c.run("", "import", "github", page)
	if code != exitInvalid || !strings.Contains(errs, "no record of") || !strings.Contains(out, "not a JSON object") {
		t.Errorf("import of an HTML page: exit %d\nstdout: %s\nstderr: %s", code, out, errs)
	}
	// An empty export is still fine.
	empty := filepath.Join(t.TempDir(), "none.json")
	os.WriteFile(empty, []byte("[]"), 0o600)
	c.ok("import", "github", empty)
}
