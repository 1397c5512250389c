package importer_test

import (
	"errors"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/holomem/holomem"
	"github.com/holomem/holomem/importer"
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
	long := "# Runbook\n\nIntro paragraph.\n\n" +
		"## Deploy steps\n\n" + strings.Repeat("Run the deploy script carefully. ", 40) + "\n\n" +
		"```sh\n## not a heading inside a fence\nmake deploy\n```\n\n" +
		"## Rollback!\n\n" + strings.Repeat("Revert the release tag. ", 40) + "\n\n" +
		"## Deploy steps\n\nA second section with the same title.\n"
	root := writeFiles(t, map[string]string{
		"b/note.md": "---\ntitle: \"Tabs\"\ncategory: user_pref\ntags: [Go, style]\ndate: 2024-03-04\n---\nUse tabs, not spaces.\n",
		"a.md":      "---\ntags:\n  - one\n  - 'two'\n---\n# A title\n\nBody of a.\n",
		"c/long.md": long,
		"empty.md":  "---\ntitle: x\n---\n\n",
		"bad.md":    "caf\xe9\n",
		".git/x.md": "hidden",
		"notes.txt": "not markdown",
		"d/E.MD":    "Upper-case extension, no title.",
	})
	recs, sum := collect(t, func(fn func(importer.Record) error) (importer.Summary, error) {
		return importer.Markdown(root, fn)
	})
	var keys []string
	byKey := map[string]*holomem.Fact{}
	for _, r := range recs {
		keys = append(keys, r.Key)
		byKey[r.Key] = r.Fact
		if r.Fact.ExternalKey != r.Key || r.Fact.Source != importer.SourceMarkdown {
			t.Errorf("%s: key %q source %q", r.Key, r.Fact.ExternalKey, r.Fact.Source)
		}
		if err := r.Fact.Validate(); err != nil {
			t.Errorf("%s: %v", r.Key, err)
		}
	}
	want := []string{
		"md:a.md", "md:b/note.md",
		"md:c/long.md", "md:c/long.md#deploy-steps", "md:c/long.md#rollback", "md:c/long.md#deploy-steps-1",
		"md:d/E.MD",
	}
	if !slices.Equal(keys, want) {
		t.Fatalf("keys = %q\nwant %q", keys, want)
	}
	if f := byKey["md:b/note.md"]; f.Content != "# Tabs\n\nUse tabs, not spaces." || f.Category != "user_pref" ||
		!slices.Equal(f.Tags, []string{"go", "style"}) || !f.CreatedAt.Equal(time.Date(2024, 3, 4, 0, 0, 0, 0, time.UTC)) {
		t.Errorf("note: %+v", f)
	}
	if f := byKey["md:a.md"]; f.Content != "# A title\n\nBody of a." || !slices.Equal(f.Tags, []string{"one", "two"}) {
		t.Errorf("a: %+v", f)
	}
	if f := byKey["md:c/long.md"]; f.Content != "# Runbook\n\nIntro paragraph." {
		t.Errorf("intro: %q", f.Content)
	}
	if c := byKey["md:c/long.md#deploy-steps"].Content; !strings.HasPrefix(c, "# Runbook\n\n## Deploy steps\n") ||
		!strings.Contains(c, "## not a heading inside a fence") {
		t.Errorf("section: %q", c)
	}
	if c := byKey["md:d/E.MD"].Content; c != "Upper-case extension, no title." {
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

func TestMarkdown_HugeSection(t *testing.T) {
	line := strings.Repeat("x", 99) + "\n"
	root := writeFiles(t, map[string]string{"big.md": "## Big\n\n" + strings.Repeat(line, holomem.MaxContentBytes/100+500)})
	recs, _ := collect(t, func(fn func(importer.Record) error) (importer.Summary, error) {
		return importer.Markdown(root, fn)
	})
	if len(recs) != 2 || recs[0].Key != "md:big.md#big" || recs[1].Key != "md:big.md#big~2" {
		t.Fatalf("got %d records", len(recs))
	}
	for _, r := range recs {
		if err := r.Fact.Validate(); err != nil {
			t.Fatal(err)
		}
	}
}

func TestMarkdown_NotADirectory(t *testing.T) {
	root := writeFiles(t, map[string]string{"a.md": "x"})
	_, err := importer.Markdown(filepath.Join(root, "a.md"), func(importer.Record) error { return nil })
	if !errors.Is(err, holomem.ErrInvalid) {
		t.Fatalf("err = %v, want ErrInvalid", err)
	}
	if _, err := importer.Markdown(filepath.Join(root, "missing"), func(importer.Record) error { return nil }); err == nil {
		t.Fatal("missing folder: no error")
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
		_, err := importer.Markdown(root, func(r importer.Record) error {
			if err := r.Fact.Validate(); err != nil {
				t.Fatalf("%s: %v", r.Key, err)
			}
			return nil
		})
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
	sum, err := importer.Markdown(dir, func(r importer.Record) error {
		got = append(got, r.Fact.Content)
		return nil
	})
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
