package importer_test

import (
	"errors"
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

func writeFiles(t *testing.T, files map[string]string) string {
	t.Helper()
	root := t.TempDir()
	for name, body := range files {
		p := filepath.Join(root, filepath.FromSlash(name))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return root
}

func TestMarkdown(t *testing.T) {
	root := writeFiles(t, map[string]string{
		"b/note.md": "---\ntitle: \"Tabs\"\ncategory: user_pref\ntags: [Go, style]\ndate: 2024-03-04\n---\nUse tabs, not spaces.\n",
		"a.md":      "---\ntags:\n  - one\n  - 'two'\n---\n# A title\n\nBody of a.\n",
		"empty.md":  "---\ntitle: x\n---\n\n",
		"bad.md":    "caf\xe9\n",
		".git/x.md": "hidden",
		"notes.txt": "plain text",
		"d/E.MD":    "Upper-case extension, no title.",
		"x.go":      "package x",
	})
	recs, sum := collect(t, func(fn func(importer.Record) error) (importer.Summary, error) {
		return importer.Markdown(t.Context(), root, fn, importer.DocOptions{})
	})
	var keys []string
	byKey := map[string]*holomem.Fact{}
	for _, r := range recs {
		keys = append(keys, r.Key)
		byKey[r.Key] = r.Fact
		if r.Fact.ExternalKey != r.Key || r.Fact.Source != importer.SourceMarkdown || r.Doc == "" || !strings.HasPrefix(r.Key, r.Doc) {
			t.Errorf("%s: key %q source %q doc %q", r.Key, r.Fact.ExternalKey, r.Fact.Source, r.Doc)
		}
		if err := r.Fact.Validate(); err != nil {
			t.Errorf("%s: %v", r.Key, err)
		}
	}
	want := []string{"md:a.md#a-title", "md:b/note.md#tabs", "md:d/E.MD", "md:notes.txt"}
	if !slices.Equal(keys, want) {
		t.Fatalf("keys = %q\nwant %q", keys, want)
	}
	if f := byKey["md:b/note.md#tabs"]; f.Content != "b/note.md > Tabs\n\nUse tabs, not spaces." || f.Category != "user_pref" ||
		!slices.Equal(f.Tags, []string{"go", "style"}) || !f.CreatedAt.Equal(time.Date(2024, 3, 4, 0, 0, 0, 0, time.UTC)) {
		t.Errorf("note: %+v", f)
	}
	if f := byKey["md:a.md#a-title"]; f.Content != "a.md > A title\n\nBody of a." || !slices.Equal(f.Tags, []string{"one", "two"}) || f.Category != importer.CategoryDoc {
		t.Errorf("a: %+v", f)
	}
	if c := byKey["md:d/E.MD"].Content; c != "d/E.MD\n\nUpper-case extension, no title." {
		t.Errorf("E: %q", c)
	}
	var skipped []string
	for _, s := range sum.Skips {
		skipped = append(skipped, s.Path)
	}
	if want := []string{"bad.md", "empty.md"}; !slices.Equal(skipped, want) {
		t.Errorf("skipped %q, want %q (%v)", skipped, want, sum.Skips)
	}
}

// copyDocs copies the fixture docs tree into a fresh directory outside
// any git work tree, so keys are relative to it and files dated by mtime.
func copyDocs(t *testing.T) string {
	t.Helper()
	dst := t.TempDir()
	if err := os.CopyFS(dst, os.DirFS("testdata/docs")); err != nil {
		t.Fatal(err)
	}
	return dst
}

// TestMarkdown_Chunks imports the fixture docs tree (ATX headings of
// every level, setext underlines, HTML headings in Markdown, code fences
// holding "#" lines, a long section, plain text and an HTML page): no
// chunk exceeds the bound, each starts with its heading path, and
// neighbours are linked in reading order.
func TestMarkdown_Chunks(t *testing.T) {
	root := copyDocs(t)
	for _, tokens := range []int{importer.MinChunkTokens, 80, importer.DefaultChunkTokens} {
		recs, sum := collect(t, func(fn func(importer.Record) error) (importer.Summary, error) {
			return importer.Markdown(t.Context(), root, fn, importer.DocOptions{ChunkTokens: tokens})
		})
		if sum.Skipped != 0 {
			t.Errorf("%d tokens: skipped %v", tokens, sum.Skips)
		}
		prevByDoc := map[string]string{}
		for _, r := range recs {
			if n := importer.EstimateTokens(r.Fact.Content); n > tokens {
				t.Errorf("%d tokens: %s has %d tokens:\n%s", tokens, r.Key, n, r.Fact.Content)
			}
			if err := r.Fact.Validate(); err != nil {
				t.Errorf("%s: %v", r.Key, err)
			}
			var links []string
			for _, l := range r.Links {
				links = append(links, l.FromKey+">"+l.ToKey+":"+string(l.Kind))
			}
			var want []string
			if p := prevByDoc[r.Doc]; p != "" {
				want = []string{p + ">" + r.Key + ":" + string(holomem.EdgeTemporal)}
			}
			if !slices.Equal(links, want) {
				t.Errorf("%s: links %q, want %q", r.Key, links, want)
			}
			prevByDoc[r.Doc] = r.Key
		}
	}

	recs, _ := collect(t, func(fn func(importer.Record) error) (importer.Summary, error) {
		return importer.Markdown(t.Context(), root, fn, importer.DocOptions{ChunkTokens: 80})
	})
	head := map[string]string{} // key -> heading path line
	body := map[string]string{}
	var all []string
	for _, r := range recs {
		h, b, _ := strings.Cut(r.Fact.Content, "\n\n")
		head[r.Key], body[r.Key] = h, b
		all = append(all, r.Fact.Content)
	}
	for key, want := range map[string]string{
		"md:GUIDE.md#user-guide/configuration/config-file":                               "GUIDE.md > User Guide > Configuration > Config file",
		"md:GUIDE.md#user-guide/configuration/config-file/precedence/deeply-nested-note": "GUIDE.md > User Guide > Configuration > Config file > Precedence > Deeply nested note",
		"md:GUIDE.md#user-guide/performance~2":                                           "GUIDE.md > User Guide > Performance",
		"md:GUIDE.md#user-guide/performance-1":                                           "GUIDE.md > User Guide > Performance",
		"md:FAQ.md#frequently-asked-questions/does-the-tool-support-configuration-files": "FAQ.md > Frequently asked questions > Does the tool support configuration files?",
		"md:FAQ.md#frequently-asked-questions/why-is-it-fast":                            "FAQ.md > Frequently asked questions > Why is it fast?",
		"md:CHANGELOG.md#changes/110-2024-05-01/bug-fixes":                               "CHANGELOG.md > Changes > 1.1.0 (2024-05-01) > Bug fixes",
		"md:CHANGELOG.md#changes/100-2023-01-10":                                         "CHANGELOG.md > Changes > 1.0.0 (2023-01-10)",
		"md:guide/notes.txt":                                                             "guide/notes.txt",
		"md:guide/page.html#web--html-page/setup-steps":                                  "guide/page.html > Web & HTML page > Setup steps",
		"md:guide/page.html#web--html-page/setup-steps/details/deeper/five/six":          "guide/page.html > Web & HTML page > Setup steps > Details > Deeper > Five > Six",
	} {
		if head[key] != want {
			t.Errorf("%s: heading path %q, want %q", key, head[key], want)
		}
	}
	if b := body["md:GUIDE.md#user-guide/configuration/config-file"]; !strings.Contains(b, "# this line is a comment") || !strings.Contains(b, "## neither is this one") {
		t.Errorf("the code fence was cut at its # lines: %q", b)
	}
	if b := body["md:guide/page.html#web--html-page"]; b != "Intro paragraph with an entity: café <tag>." {
		t.Errorf("html body %q", b)
	}
	if b := body["md:guide/page.html#web--html-page/setup-steps"]; b != "- First step\n- Second step" {
		t.Errorf("html list %q", b)
	}
	joined := strings.Join(all, "\n")
	for _, leak := range []string{"document.write", "commented out", "Ignored title", "color: red", "<p>", "=====", "-----"} {
		if strings.Contains(joined, leak) {
			t.Errorf("%q leaked into the chunks", leak)
		}
	}
	n := 0
	for k := range head {
		if strings.HasPrefix(k, "md:GUIDE.md#user-guide/performance~") {
			n++
		}
	}
	if n < 2 {
		t.Errorf("the long section was cut into %d more parts, want several", n)
	}
	if _, err := importer.Markdown(t.Context(), root, func(importer.Record) error { return nil }, importer.DocOptions{ChunkTokens: 5}); !errors.Is(err, holomem.ErrInvalid) {
		t.Errorf("5 tokens: %v, want ErrInvalid", err)
	}
}

// TestMarkdown_File imports one file: its key is its name.
func TestMarkdown_File(t *testing.T) {
	root := copyDocs(t)
	recs, _ := collect(t, func(fn func(importer.Record) error) (importer.Summary, error) {
		return importer.Markdown(t.Context(), filepath.Join(root, "FAQ.md"), fn, importer.DocOptions{})
	})
	if len(recs) != 2 || recs[0].Doc != "md:FAQ.md" {
		t.Fatalf("records %+v", recs)
	}
	if _, err := importer.Markdown(t.Context(), filepath.Join(root, "missing"), func(importer.Record) error { return nil }, importer.DocOptions{}); err == nil {
		t.Fatal("missing path: no error")
	}
}

// TestMarkdown_Reimport runs the import of the fixture three times into a
// real SQLite store: keys and ids are stable, a changed section updates
// only its chunk in place (same id, trust kept), a removed section leaves
// recall and its neighbours are linked to each other again.
func TestMarkdown_Reimport(t *testing.T) {
	ctx := t.Context()
	root := copyDocs(t)
	m, s := testutil.MustOpenMemory(t, retrieve.Options{})
	o := importer.Options{Kind: "markdown", Path: root, Namespace: "docs", ChunkTokens: 80}
	snapshot := func() map[string]*holomem.Fact {
		ns, src := "docs", importer.SourceMarkdown
		fs, _, err := s.FindFacts(ctx, holomem.FactFilter{Namespace: &ns, Source: &src})
		if err != nil {
			t.Fatal(err)
		}
		out := map[string]*holomem.Fact{}
		for _, f := range fs {
			out[f.ExternalKey] = f
		}
		return out
	}
	rep, err := importer.Run(ctx, m, s, o)
	if err != nil || rep.Created == 0 || rep.Created != rep.Records || rep.Edges != rep.Records-5 {
		t.Fatalf("first import = %+v, %v (want every chunk new and one edge per chunk but the first of each of 5 documents)", rep, err)
	}
	before := snapshot()
	const (
		install = "md:GUIDE.md#user-guide/installation"
		prec    = "md:GUIDE.md#user-guide/configuration/config-file/precedence"
		top     = "md:GUIDE.md#user-guide"
		conf    = "md:GUIDE.md#user-guide/configuration"
	)
	for _, k := range []string{install, prec} {
		if _, err := m.Feedback(ctx, before[k].ID, true); err != nil {
			t.Fatal(err)
		}
	}
	before = snapshot()

	rep, err = importer.Run(ctx, m, s, o)
	if err != nil || rep.Created != 0 || rep.Updated != 0 || rep.Removed != 0 || rep.Edges != 0 {
		t.Fatalf("unchanged re-import = %+v, %v", rep, err)
	}

	guide := filepath.Join(root, "GUIDE.md")
	b, err := os.ReadFile(guide)
	if err != nil {
		t.Fatal(err)
	}
	changed := strings.Replace(string(b), "Download the binary for your platform", "Install with the package manager of your platform", 1)
	if err := os.WriteFile(guide, []byte(changed), 0o644); err != nil {
		t.Fatal(err)
	}
	rep, err = importer.Run(ctx, m, s, o)
	if err != nil || rep.Created != 0 || rep.Updated != 1 || rep.Removed != 0 {
		t.Fatalf("re-import with one section changed = %+v, %v", rep, err)
	}
	after := snapshot()
	if len(after) != len(before) {
		t.Fatalf("%d chunks, were %d", len(after), len(before))
	}
	for k, f := range before {
		g := after[k]
		switch {
		case g == nil || g.ID != f.ID || g.Trust != f.Trust || g.HelpfulCount != f.HelpfulCount:
			t.Errorf("%s: was #%d trust %.2f, now %+v", k, f.ID, f.Trust, g)
		case k == install:
			if g.Content == f.Content || !strings.Contains(g.Content, "package manager") {
				t.Errorf("changed chunk not updated: %q", g.Content)
			}
		case g.Content != f.Content:
			t.Errorf("%s changed though its section did not: %q", k, g.Content)
		}
	}
	res, err := m.Recall(ctx, holomem.Query{Namespace: "docs", Text: "package manager", Limit: 3})
	if err != nil || len(res.Hits) == 0 || res.Hits[0].Fact.ExternalKey != install {
		t.Errorf("recall of the changed text = %+v, %v", res, err)
	}

	// Remove the Installation section: its chunk leaves, and the chunks
	// around it are linked to each other.
	a, c, _ := strings.Cut(changed, "### [Installation]")
	_, c, _ = strings.Cut(c, "### Configuration")
	if err := os.WriteFile(guide, []byte(a+"### Configuration"+c), 0o644); err != nil {
		t.Fatal(err)
	}
	rep, err = importer.Run(ctx, m, s, o)
	if err != nil || rep.Created != 0 || rep.Updated != 0 || rep.Removed != 1 || rep.Edges != 1 {
		t.Fatalf("re-import with one section removed = %+v, %v", rep, err)
	}
	after = snapshot()
	if _, ok := after[install]; ok || len(after) != len(before)-1 {
		t.Errorf("removed section still stored (%d chunks, were %d)", len(after), len(before))
	}
	es, err := s.FindEdges(ctx, holomem.EdgeFilter{From: after[top].ID, Kinds: []holomem.EdgeKind{holomem.EdgeTemporal}})
	if err != nil || len(es) != 1 || es[0].To != after[conf].ID {
		t.Errorf("edges from the first chunk = %+v, %v; want one to the configuration chunk", es, err)
	}
}

// TestMarkdown_GitDated: in a git work tree a document is dated by its
// last commit and keyed by its path in the work tree, whichever folder
// was imported.
func TestMarkdown_GitDated(t *testing.T) {
	if _, err := exec.LookPath("git"); err != nil {
		t.Skip("no git")
	}
	repo := t.TempDir()
	if err := os.CopyFS(filepath.Join(repo, "docs"), os.DirFS("testdata/docs")); err != nil {
		t.Fatal(err)
	}
	git := func(env []string, args ...string) {
		t.Helper()
		cmd := exec.Command("git", append([]string{"-C", repo}, args...)...)
		cmd.Env = append(append(os.Environ(), "GIT_CONFIG_GLOBAL=/dev/null", "GIT_AUTHOR_NAME=t", "GIT_AUTHOR_EMAIL=t@x", "GIT_COMMITTER_NAME=t", "GIT_COMMITTER_EMAIL=t@x"), env...)
		if out, err := cmd.CombinedOutput(); err != nil {
			t.Fatalf("git %v: %v\n%s", args, err, out)
		}
	}
	git(nil, "init", "-q")
	git(nil, "add", "docs/GUIDE.md")
	git([]string{"GIT_COMMITTER_DATE=2021-02-03T04:05:06Z", "GIT_AUTHOR_DATE=2021-02-03T04:05:06Z"}, "commit", "-q", "-m", "guide")
	git(nil, "add", "docs/FAQ.md")
	git([]string{"GIT_COMMITTER_DATE=2022-02-03T04:05:06Z", "GIT_AUTHOR_DATE=2022-02-03T04:05:06Z"}, "commit", "-q", "-m", "faq")
	recs, _ := collect(t, func(fn func(importer.Record) error) (importer.Summary, error) {
		return importer.Markdown(t.Context(), filepath.Join(repo, "docs"), fn, importer.DocOptions{})
	})
	dated := map[string]time.Time{}
	for _, r := range recs {
		if !strings.HasPrefix(r.Key, "md:docs/") {
			t.Errorf("key %q is not relative to the work tree", r.Key)
		}
		dated[r.Doc] = r.Fact.CreatedAt
	}
	for doc, want := range map[string]time.Time{
		"md:docs/GUIDE.md": time.Date(2021, 2, 3, 4, 5, 6, 0, time.UTC),
		"md:docs/FAQ.md":   time.Date(2022, 2, 3, 4, 5, 6, 0, time.UTC),
	} {
		if !dated[doc].Equal(want) {
			t.Errorf("%s dated %v, want its commit's %v", doc, dated[doc], want)
		}
	}
	if d := dated["md:docs/CHANGELOG.md"]; time.Since(d) > time.Hour {
		t.Errorf("untracked file dated %v, want its modification time", d)
	}
}

func FuzzMarkdownNote(f *testing.F) {
	f.Add("---\ntitle: x\ntags: [a, b]\n---\n# T\n\nbody\n")
	f.Add("---\ntags:\n - a\n---\n" + strings.Repeat("## s\n\n```\n## x\n", 300))
	f.Add("---\n")
	f.Fuzz(func(t *testing.T, note string) {
		if testing.Short() && len(note) > 1<<16 {
			t.Skip()
		}
		root := t.TempDir()
		if err := os.WriteFile(filepath.Join(root, "n.md"), []byte(note), 0o644); err != nil {
			t.Fatal(err)
		}
		_, err := importer.Markdown(t.Context(), root, func(r importer.Record) error {
			if err := r.Fact.Validate(); err != nil {
				t.Fatalf("%s: %v", r.Key, err)
			}
			if n := importer.EstimateTokens(r.Fact.Content); n > importer.MinChunkTokens {
				t.Fatalf("%s: %d tokens, bound %d", r.Key, n, importer.MinChunkTokens)
			}
			return nil
		}, importer.DocOptions{ChunkTokens: importer.MinChunkTokens})
		if err != nil {
			t.Fatal(err)
		}
	})
}

func TestMarkdown_RefusesEscapesAndFIFOs(t *testing.T) {
	dir := t.TempDir()
	outside := filepath.Join(t.TempDir(), "secret.md")
	if err := os.WriteFile(outside, []byte("# Secret\nthe root password"), 0o600); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "ok.md"), []byte("# Ok\nfine note"), 0o600); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "inside.txt"), []byte("# Inside\nlinked within the root"), 0o600); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(outside, filepath.Join(dir, "evil.md")); err != nil {
		t.Skip("no symlinks here:", err)
	}
	if err := os.Symlink("inside.txt", filepath.Join(dir, "link.md")); err != nil {
		t.Fatal(err)
	}
	fifo := filepath.Join(dir, "pipe.md")
	if err := mkfifo(fifo); err != nil {
		t.Log("no FIFO:", err)
	}
	var got []string
	sum, err := importer.Markdown(t.Context(), dir, func(r importer.Record) error {
		got = append(got, r.Fact.Content)
		return nil
	}, importer.DocOptions{})
	if err != nil {
		t.Fatal(err)
	}
	all := strings.Join(got, "|")
	if strings.Contains(all, "root password") {
		t.Errorf("a symlink out of the root was followed: %q", all)
	}
	if !strings.Contains(all, "fine note") || !strings.Contains(all, "linked within the root") {
		t.Errorf("notes inside the root missing: %q", all)
	}
	if sum.Skipped < 1 {
		t.Errorf("skips not reported: %+v", sum)
	}
}
