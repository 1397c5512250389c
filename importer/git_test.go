package importer_test

import (
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/holomem/holomem"
	"github.com/holomem/holomem/importer"
	"github.com/holomem/holomem/internal/testkit/testutil"
	"github.com/holomem/holomem/retrieve"
)

// gitRepo is a real repository in a temporary folder.
type gitRepo struct {
	tb  testing.TB
	dir string
	n   int
}

func newGitRepo(tb testing.TB) *gitRepo {
	tb.Helper()
	if _, err := exec.LookPath("git"); err != nil {
		tb.Skip("git is not installed")
	}
	r := &gitRepo{tb: tb, dir: tb.TempDir()}
	r.git("init", "-q", "-b", "main")
	return r
}

func (r *gitRepo) git(args ...string) string {
	r.tb.Helper()
	cmd := exec.Command("git", append([]string{"-C", r.dir, "-c", "user.name=Test", "-c", "user.email=t@example.com", "-c", "commit.gpgsign=false"}, args...)...)
	date := time.Date(2025, 1, 1, 0, 0, 0, 0, time.UTC).Add(time.Duration(r.n) * time.Hour).Format(time.RFC3339)
	cmd.Env = append(os.Environ(), "GIT_AUTHOR_DATE="+date, "GIT_COMMITTER_DATE="+date, "GIT_CONFIG_NOSYSTEM=1", "HOME="+r.dir)
	out, err := cmd.CombinedOutput()
	if err != nil {
		r.tb.Fatalf("git %v: %v\n%s", args, err, out)
	}
	return strings.TrimSpace(string(out))
}

// commit writes files (name -> content) and commits them with msg.
func (r *gitRepo) commit(msg string, files ...string) string {
	r.tb.Helper()
	r.n++
	for _, f := range files {
		p := filepath.Join(r.dir, f)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			r.tb.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(fmt.Sprintf("%s %d\n", f, r.n)), 0o644); err != nil {
			r.tb.Fatal(err)
		}
	}
	r.git("add", "-A")
	r.git("commit", "-q", "--allow-empty", "-m", msg)
	return r.git("rev-parse", "HEAD")
}

func TestGit(t *testing.T) {
	r := newGitRepo(t)
	r.git("remote", "add", "origin", "git@github.com:acme/app.git")
	c1 := r.commit("Initial commit", "README.md", "main.go")
	c2 := r.commit("fix(config #12): nil check\n\nFixes #13, closes other/lib#7.\nSee GH-14.", "main.go")
	c3 := r.commit("Make tests our #1 priority", "main_test.go")
	c4 := r.commit("Add docs (#20)\n\nRefs https://github.com/acme/app/issues/21", "README.md", "main.go")

	recs, sum := collect(t, func(fn func(importer.Record) error) (importer.Summary, error) {
		return importer.Git(t.Context(), r.dir, fn, importer.GitOptions{Temporal: true})
	})
	if sum.Skipped != 0 || len(recs) != 4 {
		t.Fatalf("records %d, skips %v", len(recs), sum.Skips)
	}
	key := func(sha string) string { return importer.GitKey("acme/app", sha) }
	// git log is newest first.
	if got, want := []string{recs[0].Key, recs[1].Key, recs[2].Key, recs[3].Key}, []string{key(c4), key(c3), key(c2), key(c1)}; !slices.Equal(got, want) {
		t.Fatalf("keys = %q, want %q", got, want)
	}
	f := recs[2].Fact
	if f.Content != "fix(config #12): nil check\n\nFixes #13, closes other/lib#7.\nSee GH-14." ||
		f.Category != importer.CategoryCommit || f.Source != importer.SourceGit || f.ExternalKey != key(c2) {
		t.Errorf("fact = %+v", f)
	}
	if want := time.Date(2025, 1, 1, 2, 0, 0, 0, time.UTC); !f.CreatedAt.Equal(want) {
		t.Errorf("created = %v, want %v", f.CreatedAt, want)
	}
	links := func(rec importer.Record) []string {
		var out []string
		for _, l := range rec.Links {
			out = append(out, fmt.Sprintf("%s %s>%s %s", l.Kind, l.FromKey, l.ToKey, l.Reason))
		}
		return out
	}
	wantLinks := [][]string{
		{
			"causal github:acme/app#20>" + key(c4) + " ref",
			"causal github:acme/app#21>" + key(c4) + " ref",
		},
		nil, // "#1 priority" is not a reference
		{
			"causal github:acme/app#13>" + key(c2) + " keyword,ref",
			"causal github:other/lib#7>" + key(c2) + " keyword,ref",
			"causal github:acme/app#14>" + key(c2) + " gh_ref",
			"causal github:acme/app#12>" + key(c2) + " ref",
			"temporal " + key(c2) + ">" + key(c4) + " same_file",
		},
		{
			"temporal " + key(c1) + ">" + key(c4) + " same_file",
			"temporal " + key(c1) + ">" + key(c2) + " same_file",
		},
	}
	for i, want := range wantLinks {
		if got := links(recs[i]); !slices.Equal(got, want) {
			t.Errorf("commit %d links:\n got %q\nwant %q", i, got, want)
		}
	}
	if got := sum.LinksByKind[holomem.EdgeTemporal]; got != 3 {
		t.Errorf("temporal links = %d, want 3", got)
	}
}

func TestGit_NoGitHubRemote(t *testing.T) {
	r := newGitRepo(t)
	c := r.commit("Fix #3")
	recs, _ := collect(t, func(fn func(importer.Record) error) (importer.Summary, error) {
		return importer.Git(t.Context(), r.dir, fn, importer.GitOptions{MaxCount: 1})
	})
	name := filepath.Base(r.dir)
	if len(recs) != 1 || recs[0].Key != importer.GitKey(name, c) {
		t.Fatalf("records = %+v", recs)
	}
	if len(recs[0].Links) != 1 || recs[0].Links[0].FromKey != "issue:#3" {
		t.Fatalf("links = %+v", recs[0].Links)
	}
	recs, _ = collect(t, func(fn func(importer.Record) error) (importer.Summary, error) {
		return importer.Git(t.Context(), r.dir, fn, importer.GitOptions{Name: "mine"})
	})
	if recs[0].Key != importer.GitKey("mine", c) {
		t.Fatalf("key = %q", recs[0].Key)
	}
}

// TestGit_LocalOrigin: a clone whose origin is a local path (a clone of a
// GitHub clone) keys its issue references by the GitHub repository at the
// end of the origin chain, so they link to the imported issues.
func TestGit_LocalOrigin(t *testing.T) {
	upstream := newGitRepo(t)
	upstream.git("remote", "add", "origin", "https://github.com/acme/app.git")
	c := upstream.commit("Fix #3")
	clone := newGitRepo(t)
	clone.git("remote", "add", "origin", upstream.dir)
	clone.git("fetch", "-q", "origin")
	clone.git("reset", "-q", "--hard", "origin/main")

	recs, sum := collect(t, func(fn func(importer.Record) error) (importer.Summary, error) {
		return importer.Git(t.Context(), clone.dir, fn, importer.GitOptions{})
	})
	if len(recs) != 1 || recs[0].Key != importer.GitKey("acme/app", c) {
		t.Fatalf("records = %+v", recs)
	}
	if len(recs[0].Links) != 1 || recs[0].Links[0].FromKey != "github:acme/app#3" {
		t.Fatalf("links = %+v, want one from github:acme/app#3", recs[0].Links)
	}
	if len(sum.Notes) != 0 {
		t.Errorf("notes = %q, want none", sum.Notes)
	}
}

// TestGit_Repo: the repository given for a clone without a GitHub origin
// keys its references; without it the summary says why nothing can link.
func TestGit_Repo(t *testing.T) {
	r := newGitRepo(t)
	r.git("remote", "add", "origin", "/nonexistent/app.git")
	c := r.commit("Fix #3")
	recs, sum := collect(t, func(fn func(importer.Record) error) (importer.Summary, error) {
		return importer.Git(t.Context(), r.dir, fn, importer.GitOptions{})
	})
	if len(recs) != 1 || recs[0].Links[0].FromKey != "issue:#3" {
		t.Fatalf("records = %+v", recs)
	}
	if len(sum.Notes) != 1 || !strings.Contains(sum.Notes[0], "origin /nonexistent/app.git is not on GitHub") || !strings.Contains(sum.Notes[0], "--repo owner/name") {
		t.Errorf("notes = %q, want one naming the origin and --repo", sum.Notes)
	}
	for _, repo := range []string{"acme/app", "https://github.com/acme/app"} {
		recs, sum = collect(t, func(fn func(importer.Record) error) (importer.Summary, error) {
			return importer.Git(t.Context(), r.dir, fn, importer.GitOptions{Repo: repo})
		})
		if len(recs) != 1 || recs[0].Key != importer.GitKey("acme/app", c) || recs[0].Links[0].FromKey != "github:acme/app#3" || len(sum.Notes) != 0 {
			t.Errorf("Repo %q: records = %+v, notes %q", repo, recs, sum.Notes)
		}
	}
	_, err := importer.Git(t.Context(), r.dir, func(importer.Record) error { return nil }, importer.GitOptions{Repo: "app"})
	if !errors.Is(err, holomem.ErrInvalid) {
		t.Errorf("Repo without owner: err = %v, want ErrInvalid", err)
	}
}

func TestGit_Errors(t *testing.T) {
	noop := func(importer.Record) error { return nil }
	t.Run("ErrInvalidNotARepo", func(t *testing.T) {
		if _, err := exec.LookPath("git"); err != nil {
			t.Skip("git is not installed")
		}
		_, err := importer.Git(t.Context(), t.TempDir(), noop, importer.GitOptions{})
		if !errors.Is(err, holomem.ErrInvalid) || !strings.Contains(err.Error(), "not a git repository") {
			t.Fatalf("err = %v, want ErrInvalid", err)
		}
	})
	t.Run("EmptyRepo", func(t *testing.T) {
		r := newGitRepo(t)
		sum, err := importer.Git(t.Context(), r.dir, noop, importer.GitOptions{})
		if err != nil || sum.Records != 0 {
			t.Fatalf("sum %+v, err %v", sum, err)
		}
	})
	t.Run("ErrInvalidRev", func(t *testing.T) {
		r := newGitRepo(t)
		r.commit("x")
		_, err := importer.Git(t.Context(), r.dir, noop, importer.GitOptions{Rev: "nope"})
		if !errors.Is(err, holomem.ErrInvalid) {
			t.Fatalf("err = %v, want ErrInvalid", err)
		}
	})
	t.Run("CallbackError", func(t *testing.T) {
		r := newGitRepo(t)
		r.commit("a")
		r.commit("b")
		boom := errors.New("boom")
		_, err := importer.Git(t.Context(), r.dir, func(importer.Record) error { return boom }, importer.GitOptions{})
		if !errors.Is(err, boom) {
			t.Fatalf("err = %v, want boom", err)
		}
	})
}

// TestGit_History: a real repository whose commits speak of each other
// (a revert, fixup! and squash!, a cherry-pick -x, a follow-up naming a
// short hash, two commits naming the same issue) gets causal links
// between those commits, and once stored they show in edge liveness
// under one origin per pattern.
func TestGit_History(t *testing.T) {
	r := newGitRepo(t)
	c1 := r.commit("Add the config parser (#5)", "parse.go")
	c2 := r.commit("fixup! Add the config parser", "parse.go")
	c3 := r.commit("squash! fixup! Add the config parser\n\nWith a test.", "parse_test.go")
	c4 := r.commit("Cache parsed files", "cache.go")
	r.n++
	r.git("revert", "--no-edit", c4)
	c5 := r.git("rev-parse", "HEAD")
	r.git("checkout", "-q", "-b", "feature")
	c6 := r.commit("Handle tabs in values", "tabs.go")
	r.git("checkout", "-q", "main")
	r.n++
	r.git("cherry-pick", "-x", c6)
	c7 := r.git("rev-parse", "HEAD")
	r.n++
	r.git("merge", "-q", "--no-ff", "-m", "Merge branch feature", "feature")
	c8 := r.commit("Follow-up to "+c1[:9]+": empty files", "parse.go")
	c9 := r.commit("Reject duplicate keys, see #5", "parse.go")
	r.commit("Unrelated: fixup! is only special at the start; this reverts commit 0000000", "other.go")

	recs, sum := collect(t, func(fn func(importer.Record) error) (importer.Summary, error) {
		return importer.Git(t.Context(), r.dir, fn, importer.GitOptions{})
	})
	name := filepath.Base(r.dir)
	key := func(sha string) string { return importer.GitKey(name, sha) }
	var got []string
	for _, rec := range recs {
		for _, l := range rec.Links {
			if strings.HasPrefix(l.FromKey, "git:") {
				got = append(got, fmt.Sprintf("%s %s>%s %s", l.Kind, l.FromKey, l.ToKey, l.Reason))
			}
		}
	}
	slices.Sort(got)
	want := []string{
		"causal " + key(c1) + ">" + key(c2) + " fixup",
		"causal " + key(c1) + ">" + key(c3) + " squash",
		"causal " + key(c4) + ">" + key(c5) + " revert",
		"causal " + key(c6) + ">" + key(c7) + " cherry_pick",
		"causal " + key(c1) + ">" + key(c8) + " follow_up",
		"causal " + key(c1) + ">" + key(c9) + " same_issue",
	}
	slices.Sort(want)
	if !slices.Equal(got, want) {
		t.Fatalf("links between commits:\n got %q\nwant %q", got, want)
	}
	for _, why := range []string{"fixup", "squash", "revert", "cherry_pick", "follow_up", "same_issue"} {
		if sum.LinksByReason[why] != 1 {
			t.Errorf("links by reason %s = %d, want 1 (%v)", why, sum.LinksByReason[why], sum.LinksByReason)
		}
	}

	ctx := t.Context()
	m, s := testutil.MustOpenMemory(t, retrieve.Options{})
	rep, err := importer.Run(ctx, m, s, importer.Options{Kind: "git", Path: r.dir, Namespace: "app"})
	if err != nil || rep.Edges != 6 {
		t.Fatalf("import = %+v, %v; want 6 edges", rep, err)
	}
	st, err := s.Stats(ctx, "app")
	if err != nil {
		t.Fatal(err)
	}
	live := map[string]int{}
	for _, a := range st.EdgeActivity {
		live[string(a.Kind)+" "+a.Origin] = a.Last7d
	}
	for _, why := range []string{"fixup", "squash", "revert", "cherry_pick", "follow_up", "same_issue"} {
		if live["causal import:"+why] != 1 {
			t.Errorf("edge liveness of import:%s = %d, want 1 (%v)", why, live["causal import:"+why], live)
		}
	}
	// The history now has a chain to follow without a forge.
	first, err := s.FindFactByExternalKey(ctx, "app", key(c1))
	if err != nil {
		t.Fatal(err)
	}
	steps, err := m.Chain(ctx, first.ID, nil, 1)
	if err != nil || len(steps) < 4 {
		t.Errorf("chain from the first commit = %d steps, %v; want its fixup, squash, follow-up and same-issue commits", len(steps), err)
	}
}
