package main

import (
	"bytes"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// cli runs holomem in-process against db and returns stdout, stderr and the exit code.
type cli struct {
	t  *testing.T
	db string
}

func newCLI(t *testing.T) *cli {
	t.Helper()
	t.Setenv("HOLOMEM_MODEL_DIR", t.TempDir()) // no model installed
	t.Setenv("HOLOMEM_NAMESPACE", "")
	return &cli{t: t, db: filepath.Join(t.TempDir(), "cli.db")}
}

func (c *cli) run(stdin string, args ...string) (string, string, int) {
	c.t.Helper()
	var out, errb bytes.Buffer
	code := run(c.t.Context(), append([]string{"--db", c.db, "--global"}, args...), strings.NewReader(stdin), &out, &errb)
	return out.String(), errb.String(), code
}

func (c *cli) ok(args ...string) string {
	c.t.Helper()
	out, errs, code := c.run("", args...)
	if code != 0 {
		c.t.Fatalf("holomem %v: exit %d\nstdout: %s\nstderr: %s", args, code, out, errs)
	}
	return out
}

func (c *cli) json(v any, args ...string) {
	c.t.Helper()
	out := c.ok(append([]string{"--json"}, args...)...)
	if err := json.Unmarshal([]byte(out), v); err != nil {
		c.t.Fatalf("holomem %v: output is not JSON: %v\n%s", args, err, out)
	}
}

func TestCLI_AddRecall(t *testing.T) {
	c := newCLI(t)
	var added struct {
		Created bool `json:"created"`
		Fact    struct {
			ID int64 `json:"id"`
		} `json:"fact"`
	}
	c.json(&added, "add", "We deploy nginx with Ansible; the playbook is deploy/nginx.yml", "--category", "project", "--tags", "ops,nginx")
	if !added.Created || added.Fact.ID != 1 {
		t.Fatalf("add = %+v", added)
	}
	var res struct {
		Hits []struct {
			Fact struct {
				ID      int64  `json:"id"`
				Content string `json:"content"`
			} `json:"fact"`
			Scores map[string]float64 `json:"scores"`
		} `json:"hits"`
		Channels []string `json:"channels"`
		Notes    []string `json:"notes"`
	}
	c.json(&res, "recall", "deploying", "nginx")
	if len(res.Hits) != 1 || res.Hits[0].Fact.ID != 1 {
		t.Fatalf("recall = %+v", res)
	}
	if res.Hits[0].Scores["fts"] <= 0 {
		t.Errorf("no fts score: %v", res.Hits[0].Scores)
	}
	if strings.Join(res.Channels, ",") != "fts,jaccard,hrr" || len(res.Notes) == 0 {
		t.Errorf("channels = %v, notes = %v: the missing model must be said", res.Channels, res.Notes)
	}
	if out := c.ok("search", "nginx", "--explain"); !strings.Contains(out, "relevance") {
		t.Errorf("search --explain printed no explanation:\n%s", out)
	}
	// Reading content from stdin.
	out, _, code := c.run("Bob owns the backup schedule\n", "add", "-")
	if code != 0 || !strings.Contains(out, "remembered #2") {
		t.Errorf("add - = %q (exit %d)", out, code)
	}
}

func TestCLI_ExitCodes(t *testing.T) {
	c := newCLI(t)
	c.ok("add", "Alice prefers dark mode")
	tests := []struct {
		name string
		args []string
		want int
	}{
		{"NotFound", []string{"get", "42"}, exitNotFound},
		{"ForgetNotFound", []string{"forget", "42"}, exitNotFound},
		{"Empty", []string{"add", "   "}, exitInvalid},
		{"InvalidUTF8", []string{"add", "bad \xff"}, exitInvalid},
		{"NUL", []string{"add", "a\x00b"}, exitInvalid},
		{"Huge", []string{"add", strings.Repeat("x", 1<<20)}, exitInvalid},
		{"BadID", []string{"get", "abc"}, exitUsage},
		{"UnknownCommand", []string{"frobnicate"}, exitUsage},
		{"UnknownFlag", []string{"recall", "--nope", "x"}, exitUsage},
		{"FeedbackBoth", []string{"feedback", "1"}, exitUsage},
		{"EmptyQuery", []string{"recall", " "}, exitInvalid},
		{"SelfSupersede", []string{"supersede", "1", "1"}, exitInvalid},
		{"LinkUnknown", []string{"link", "1", "77"}, exitNotFound},
		{"SelfLoop", []string{"link", "1", "1"}, exitInvalid},
		{"BadKind", []string{"link", "1", "1", "--kind", "Bad Kind"}, exitInvalid},
		{"ReembedNoModel", []string{"reembed", "--model", "nope/nope"}, exitNoModel},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, errs, code := c.run("", tt.args...)
			if code != tt.want {
				t.Errorf("exit = %d, want %d; stderr: %s", code, tt.want, errs)
			}
			if code != 0 && !strings.HasPrefix(errs, "holomem: ") {
				t.Errorf("stderr does not explain: %q", errs)
			}
		})
	}
	for _, q := range []string{`C++ (foo`, `"`, `-rf`, `NEAR(`, `title:x`} {
		if _, errs, code := c.run("", "recall", "--", q); code != 0 {
			t.Errorf("recall %q: exit %d: %s", q, code, errs)
		}
	}
}

func TestCLI_NotADatabase(t *testing.T) {
	c := newCLI(t)
	if err := os.WriteFile(c.db, []byte("this is not sqlite, just text that is long enough to be a header........"), 0o600); err != nil {
		t.Fatal(err)
	}
	_, errs, code := c.run("", "stats")
	if code != exitUnsupported {
		t.Errorf("exit = %d, want %d; stderr: %s", code, exitUnsupported, errs)
	}
	b, _ := os.ReadFile(c.db)
	if !strings.HasPrefix(string(b), "this is not sqlite") {
		t.Error("holomem changed a file that is not its database")
	}
}

func TestCLI_ExportImportRoundTrip(t *testing.T) {
	c := newCLI(t)
	c.ok("add", "Alice prefers dark mode in the editor", "-c", "user_pref", "-t", "ui")
	c.ok("add", "Alice prefers light mode in the editor today")
	c.ok("add", "Issue 12: login fails on Safari", "--key", "github:acme/web#12")
	c.ok("add", "PR 13 fixes the Safari login", "--key", "github:acme/web#13")
	c.ok("link", "3", "4", "--kind", "causal")
	c.ok("supersede", "1", "2")
	c.ok("feedback", "3", "--helpful")
	export := filepath.Join(t.TempDir(), "export.jsonl")
	c.ok("export", "-o", export)

	d := newCLI(t)
	out := d.ok("import", export)
	if !strings.Contains(out, "4 new facts") {
		t.Errorf("import: %s", out)
	}
	// Idempotent: a second import creates nothing.
	if out := d.ok("import", "jsonl", export); !strings.Contains(out, "0 new facts, 4 already there") {
		t.Errorf("second import: %s", out)
	}
	again := filepath.Join(t.TempDir(), "again.jsonl")
	d.ok("export", "-o", again)
	a, _ := os.ReadFile(export)
	b, _ := os.ReadFile(again)
	if normalizeExport(string(a)) != normalizeExport(string(b)) {
		t.Errorf("round trip changed the export:\n%s\n---\n%s", a, b)
	}
}

// normalizeExport drops the header line (it carries the export time).
func normalizeExport(s string) string {
	lines := strings.Split(strings.TrimSpace(s), "\n")
	var keep []string
	for _, l := range lines {
		if strings.Contains(l, `"type":"header"`) {
			continue
		}
		keep = append(keep, l)
	}
	return strings.Join(keep, "\n")
}

func TestCLI_ImportGitHubCausal(t *testing.T) {
	c := newCLI(t)
	issues := `[{"number":4409,"title":"Crash when the cache is full","body":"Stack trace...","state":"CLOSED","url":"https://github.com/acme/app/issues/4409","createdAt":"2026-01-02T10:00:00Z","labels":[{"name":"bug"}]},
{"number":4410,"title":"Slow login","body":"It takes 9 s","state":"OPEN","url":"https://github.com/acme/app/issues/4410","createdAt":"2026-01-03T10:00:00Z","labels":[]}]`
	prs := `[{"number":4500,"title":"fix(cache #4409): evict before insert","body":"Adds eviction.","state":"MERGED","headRefName":"main","url":"https://github.com/acme/app/pull/4500","mergedAt":"2026-01-04T10:00:00Z","labels":[]},
{"number":4501,"title":"Speed up login","body":"Closes #4410","state":"MERGED","headRefName":"perf/login","url":"https://github.com/acme/app/pull/4501","labels":[]},
not json at all
]`
	dir := t.TempDir()
	os.WriteFile(filepath.Join(dir, "issues.json"), []byte(issues), 0o600)
	os.WriteFile(filepath.Join(dir, "prs.json"), []byte(prs), 0o600)
	c.ok("import", "github", filepath.Join(dir, "issues.json"))
	out, errs, code := c.run("", "import", "github", filepath.Join(dir, "prs.json"))
	t.Logf("import prs: exit %d\n%s%s", code, out, errs)

	var chain struct {
		Chain []struct {
			Path []int64 `json:"path"`
		} `json:"chain"`
	}
	c.json(&chain, "chain", "1")
	if len(chain.Chain) == 0 {
		t.Fatalf("no causal chain from the issue")
	}
	var res struct {
		Hits []struct {
			Fact struct {
				ExternalKey string `json:"external_key"`
			} `json:"fact"`
			Via []int64 `json:"via"`
		} `json:"hits"`
	}
	c.json(&res, "recall", "stack trace crash", "--causal")
	found := false
	for _, h := range res.Hits {
		if h.Fact.ExternalKey == "github:acme/app#4500" && len(h.Via) > 0 {
			found = true
		}
	}
	if !found {
		t.Errorf("recall --causal did not bring the fixing PR via the edge: %+v", res.Hits)
	}
}

func TestCLI_Hook(t *testing.T) {
	c := newCLI(t)
	c.ok("add", "The staging database is Postgres 16 on db-stage-1")
	c.ok("add", "The staging database is Postgres 16 on db-stage-1 (confirmed)")
	ev := `{"session_id":"s1","hook_event_name":"UserPromptSubmit","prompt":"which postgres runs on staging?"}`
	out, _, code := c.run(ev, "hook", "recall")
	if code != 0 {
		t.Fatalf("hook exit %d", code)
	}
	if !strings.Contains(out, "<holomem-memory>") || !strings.Contains(out, "Postgres 16") {
		t.Fatalf("hook output:\n%s", out)
	}
	if n := strings.Count(out, "Postgres 16"); n != 1 {
		t.Errorf("restated near-duplicate not collapsed: %d copies\n%s", n, out)
	}
	// Plain text, an empty event and a broken event never fail.
	for _, in := range []string{"postgres staging", "", "{\"prompt\":", `{"cwd":"/nonexistent"}`} {
		if _, _, code := c.run(in, "hook", "recall"); code != 0 {
			t.Errorf("hook with %q: exit %d", in, code)
		}
	}
	var doc struct {
		Extra map[string]any `json:"extra"`
	}
	c.json(&doc, "doctor")
	hooks, ok := doc.Extra["hook_24h"].(map[string]any)
	if !ok {
		t.Fatalf("doctor has no hook exposure: %+v", doc.Extra)
	}
	outcomes, _ := hooks["outcomes"].(map[string]any)
	if outcomes["injected"] == nil || outcomes["empty"] == nil {
		t.Errorf("hook outcomes = %v, want injected and empty runs logged", outcomes)
	}
}

func TestCLI_ProjectNamespaceAndAnchors(t *testing.T) {
	repo := t.TempDir()
	for _, args := range [][]string{
		{"init", "-q", repo},
		{"-C", repo, "remote", "add", "origin", "git@github.com:Acme/Widgets.git"},
	} {
		if out, err := exec.Command("git", args...).CombinedOutput(); err != nil {
			t.Fatalf("git %v: %v\n%s", args, err, out)
		}
	}
	if got, want := projectNamespace(repo), "github.com/acme/widgets"; got != want {
		t.Errorf("projectNamespace = %q, want %q", got, want)
	}
	if got := projectNamespace(t.TempDir()); got != "" {
		t.Errorf("projectNamespace outside git = %q, want empty", got)
	}

	c := newCLI(t)
	root := t.TempDir()
	file := filepath.Join(root, "deploy.yml")
	os.WriteFile(file, []byte("replicas: 3\n"), 0o600)
	// Outside a git project and without --anchor-root there is no root to
	// confine the anchor to: refused, saying what to do.
	t.Chdir(t.TempDir())
	t.Setenv("HOLOMEM_ANCHOR_ROOT", "")
	if _, stderr, code := c.run("", "-n", "proj", "add", "x", "--anchor", file); code != 4 || !strings.Contains(stderr, "--anchor-root") {
		t.Errorf("anchor without a root: exit %d, %q; want 4 naming --anchor-root", code, stderr)
	}
	if _, stderr, code := c.run("", "--anchor-root", root, "-n", "proj", "add", "x", "--anchor", filepath.Join(root, "../../../etc/passwd")); code != 4 || !strings.Contains(stderr, "outside") {
		t.Errorf("anchor escaping the root: exit %d, %q; want 4, outside", code, stderr)
	}
	c.ok("--anchor-root", root, "-n", "proj", "add", "The deploy file sets three replicas", "--anchor", file)
	var got struct {
		Anchor struct{ Path string } `json:"anchor"`
	}
	c.json(&got, "-n", "proj", "get", "1")
	if got.Anchor.Path != "deploy.yml" {
		t.Errorf("stored anchor path = %q, want deploy.yml relative to the root", got.Anchor.Path)
	}
	t.Setenv("HOLOMEM_ANCHOR_ROOT", root)
	c.ok("-n", "other", "add", "The deploy file of another project")
	var res struct {
		Hits []struct {
			Stale string `json:"stale"`
			Fact  struct {
				Namespace string `json:"namespace"`
			} `json:"fact"`
		} `json:"hits"`
	}
	c.json(&res, "-n", "proj", "recall", "deploy file")
	if len(res.Hits) != 1 || res.Hits[0].Fact.Namespace != "proj" || res.Hits[0].Stale != "" {
		t.Fatalf("recall in proj = %+v: namespaces must not leak and the anchor is fresh", res.Hits)
	}
	os.WriteFile(file, []byte("replicas: 5\n"), 0o600)
	c.json(&res, "-n", "proj", "recall", "deploy file")
	if len(res.Hits) != 1 || res.Hits[0].Stale == "" {
		t.Errorf("changed anchor not marked stale: %+v", res.Hits)
	}
	if out := c.ok("-n", "proj", "doctor"); !strings.Contains(out, "stale: #1") {
		t.Errorf("doctor does not list the stale anchor:\n%s", out)
	}
}

// TestProjectNamespace_LocalRepository: a repository with no origin, or
// whose origin is a local path, is named by its root commit, so moving the
// checkout or cloning it again keeps its memory; one with a server origin
// keeps the host/owner/repo name.
func TestProjectNamespace_LocalRepository(t *testing.T) {
	git := func(dir string, args ...string) string {
		t.Helper()
		cmd := exec.Command("git", append([]string{"-C", dir, "-c", "user.name=T", "-c", "user.email=t@x", "-c", "commit.gpgsign=false"}, args...)...)
		cmd.Env = append(os.Environ(), "GIT_CONFIG_NOSYSTEM=1", "HOME="+dir)
		out, err := cmd.CombinedOutput()
		if err != nil {
			t.Fatalf("git %v: %v\n%s", args, err, out)
		}
		return strings.TrimSpace(string(out))
	}
	t.Setenv("XDG_CACHE_HOME", t.TempDir())
	t.Setenv("HOME", t.TempDir())
	base := t.TempDir()
	repo := filepath.Join(base, "app")
	if err := os.MkdirAll(repo, 0o755); err != nil {
		t.Fatal(err)
	}
	git(repo, "init", "-q")
	if got := projectNamespace(repo); !strings.HasPrefix(got, "local:") {
		t.Errorf("no commits yet: %q, want local:<path>", got)
	}
	git(repo, "commit", "-q", "--allow-empty", "-m", "first")
	root := git(repo, "rev-parse", "HEAD")
	git(repo, "commit", "-q", "--allow-empty", "-m", "second")
	want := "git:" + root[:12]
	if got := projectNamespace(repo); got != want {
		t.Fatalf("no origin: %q, want %q", got, want)
	}
	moved := filepath.Join(base, "elsewhere", "renamed")
	if err := os.MkdirAll(filepath.Dir(moved), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.Rename(repo, moved); err != nil {
		t.Fatal(err)
	}
	if got := projectNamespace(moved); got != want {
		t.Errorf("moved checkout: %q, want %q", got, want)
	}
	if b, err := os.ReadFile(rootCachePath(moved)); err != nil || strings.TrimSpace(string(b)) != root {
		t.Errorf("root not cached: %q, %v", b, err)
	}
	// The root is cached per work tree; a cache naming a commit the
	// repository does not have is not believed.
	if err := os.WriteFile(rootCachePath(moved), []byte(strings.Repeat("ab", 20)), 0o600); err != nil {
		t.Fatal(err)
	}
	if got := projectNamespace(moved); got != want {
		t.Errorf("with a wrong cached root: %q, want %q", got, want)
	}
	clone := filepath.Join(base, "clone")
	git(base, "clone", "-q", moved, clone)
	if got := projectNamespace(clone); got != want {
		t.Errorf("clone with a local origin: %q, want %q", got, want)
	}
	git(clone, "remote", "set-url", "origin", "https://gitlab.example.com/Team/App.git")
	if got := projectNamespace(clone); got != "gitlab.example.com/team/app" {
		t.Errorf("server origin: %q", got)
	}
}

func TestLocalRemote(t *testing.T) {
	for u, want := range map[string]bool{
		"/srv/app.git": true, "../app": true, "app": true, "file:///srv/app.git": true, `C:\repos\app`: true, "./a:b": true,
		"git@github.com:acme/app.git": false, "github.com:acme/app": false, "https://github.com/acme/app": false, "ssh://host/app": false,
	} {
		if got := localRemote(u); got != want {
			t.Errorf("localRemote(%q) = %v, want %v", u, got, want)
		}
	}
}
