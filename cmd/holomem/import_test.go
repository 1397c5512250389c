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

// TestCLI_ImportMarkdownChunks: --chunk-tokens bounds every chunk, a
// single file can be imported, a re-import after an edit says what changed,
// and a bound out of range is a usage error.
func TestCLI_ImportMarkdownChunks(t *testing.T) {
	dir := t.TempDir()
	doc := filepath.Join(dir, "GUIDE.md")
	body := "# Guide\n\n## Setup\n\n" + strings.Repeat("Install the tool and check its version before you go on. ", 12) + "\n\n## Use\n\nRun it.\n"
	if err := os.WriteFile(doc, []byte(body), 0o600); err != nil {
		t.Fatal(err)
	}
	c := newCLI(t)
	var rep struct {
		Records, Created, Updated, Removed int
	}
	c.json(&rep, "-n", "docs", "import", "markdown", "--chunk-tokens", "64", doc)
	if rep.Records < 4 || rep.Created != rep.Records {
		t.Fatalf("import = %+v, want the long section in several chunks", rep)
	}
	var list struct {
		Facts []struct {
			Content, Category string
		} `json:"facts"`
	}
	c.json(&list, "-n", "docs", "list", "--limit", "100")
	if len(list.Facts) != rep.Records {
		t.Fatalf("%d facts listed, %d imported", len(list.Facts), rep.Records)
	}
	for _, f := range list.Facts {
		if n := (len([]rune(f.Content)) + 3) / 4; n > 64 || f.Category != "doc" || !strings.HasPrefix(f.Content, "GUIDE.md > Guide > ") {
			t.Errorf("chunk of %d tokens, category %q: %q", n, f.Category, f.Content)
		}
	}
	if err := os.WriteFile(doc, []byte(strings.Replace(body, "Run it.", "Run it twice.", 1)), 0o600); err != nil {
		t.Fatal(err)
	}
	if out := c.ok("-n", "docs", "import", "markdown", "--chunk-tokens", "64", doc); !strings.Contains(out, "0 new facts") || !strings.Contains(out, "1 updated in place, 0 no longer in their document removed") {
		t.Errorf("re-import after an edit:\n%s", out)
	}
	if _, errs, code := c.run("", "import", "markdown", "--chunk-tokens", "8", doc); code == 0 || !strings.Contains(errs, "32 to 16000") {
		t.Errorf("--chunk-tokens 8: exit %d, %q", code, errs)
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
