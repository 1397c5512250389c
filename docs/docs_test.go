package docs

import (
	"bufio"
	"bytes"
	"fmt"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"
	"unicode"
)

// maxReadmeLines keeps the README a page a newcomer reads to the end; the
// rest belongs in docs/.
const maxReadmeLines = 300

// repoRoot is the repository's top level: this package lives in docs/.
func repoRoot(t *testing.T) string {
	t.Helper()
	root, err := filepath.Abs("..")
	if err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(filepath.Join(root, "go.mod")); err != nil {
		t.Fatalf("no go.mod above docs/: %v", err)
	}
	return root
}

// pages lists the documentation checked, as slash paths relative to root:
// README.md and every docs/*.md.
func pages(t *testing.T, root string) []string {
	t.Helper()
	md, err := filepath.Glob(filepath.Join(root, "docs", "*.md"))
	if err != nil {
		t.Fatal(err)
	}
	out := []string{"README.md"}
	for _, p := range md {
		rel, err := filepath.Rel(root, p)
		if err != nil {
			t.Fatal(err)
		}
		out = append(out, filepath.ToSlash(rel))
	}
	return out
}

func TestReadme_short(t *testing.T) {
	b, err := os.ReadFile(filepath.Join(repoRoot(t), "README.md"))
	if err != nil {
		t.Fatal(err)
	}
	if n := bytes.Count(b, []byte("\n")); n > maxReadmeLines {
		t.Errorf("README.md has %d lines, at most %d: move detail into docs/", n, maxReadmeLines)
	}
	// .ci/run runs the README's test command; they must stay the same.
	for _, want := range []string{"\ngo test -race ./...\n", "\ngo install ./cmd/holomem\n"} {
		if !bytes.Contains(b, []byte(want)) {
			t.Errorf("README.md lost the line %q", strings.TrimSpace(want))
		}
	}
}

// TestLinks fails on a relative link of README.md or docs/*.md whose file
// does not exist in the repository, or whose #fragment names no heading of
// the markdown file it points to.
func TestLinks(t *testing.T) {
	root := repoRoot(t)
	anchors := map[string][]string{} // slash path -> heading slugs, read on demand
	slugsOf := func(p string) ([]string, error) {
		if s, ok := anchors[p]; ok {
			return s, nil
		}
		b, err := os.ReadFile(filepath.Join(root, filepath.FromSlash(p)))
		if err != nil {
			return nil, err
		}
		s := headingSlugs(string(b))
		anchors[p] = s
		return s, nil
	}
	checked := 0
	for _, page := range pages(t, root) {
		b, err := os.ReadFile(filepath.Join(root, filepath.FromSlash(page)))
		if err != nil {
			t.Fatal(err)
		}
		for _, l := range links(string(b)) {
			if external(l.target) {
				continue
			}
			checked++
			file, frag, _ := strings.Cut(l.target, "#")
			target := page
			if file != "" {
				target = path.Clean(path.Join(path.Dir(page), file))
				if target == ".." || strings.HasPrefix(target, "../") {
					t.Errorf("%s:%d: link %q leaves the repository", page, l.line, l.target)
					continue
				}
				if _, err := os.Stat(filepath.Join(root, filepath.FromSlash(target))); err != nil {
					t.Errorf("%s:%d: link %q: no such file %s", page, l.line, l.target, target)
					continue
				}
			}
			if frag == "" || !strings.HasSuffix(target, ".md") {
				continue
			}
			slugs, err := slugsOf(target)
			if err != nil {
				t.Errorf("%s:%d: link %q: %v", page, l.line, l.target, err)
				continue
			}
			if !slices.Contains(slugs, frag) {
				t.Errorf("%s:%d: link %q: %s has no heading #%s (it has %v)", page, l.line, l.target, target, frag, slugs)
			}
		}
	}
	if checked == 0 {
		t.Error("found no relative link to check: the link parser is broken")
	}
}

// designRef is how Go comments cite the design: "docs/design.md §3.5".
var designRef = regexp.MustCompile(`docs/design\.md §(\d+(?:\.\d+)?)`)

// TestDesignReferences fails when a Go file cites a section of
// docs/design.md that does not exist, or still cites the old DESIGN.md.
func TestDesignReferences(t *testing.T) {
	root := repoRoot(t)
	design, err := os.ReadFile(filepath.Join(root, "docs", "design.md"))
	if err != nil {
		t.Fatal(err)
	}
	sections := designSections(string(design))
	refs := 0
	err = filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() {
			// docs/ is this test, which names what it looks for.
			if name := d.Name(); p != root && (strings.HasPrefix(name, ".") || name == "testdata" || name == "node_modules" || p == filepath.Join(root, "docs")) {
				return filepath.SkipDir
			}
			return nil
		}
		if !strings.HasSuffix(p, ".go") {
			return nil
		}
		b, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(root, p)
		for i, line := range strings.Split(string(b), "\n") {
			if strings.Contains(line, "DESIGN.md") {
				t.Errorf("%s:%d: cites DESIGN.md, which is docs/design.md now (cite a section: docs/design.md §N)", rel, i+1)
			}
			for _, m := range designRef.FindAllStringSubmatch(line, -1) {
				refs++
				if !sections[m[1]] {
					t.Errorf("%s:%d: cites docs/design.md §%s, which has no such section", rel, i+1, m[1])
				}
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if refs == 0 {
		t.Error("no Go file cites docs/design.md: the reference pattern is broken")
	}
}

// Words a user's page has no use for: the project's own issue numbers and
// the work log's "session".
var (
	issueNumber = regexp.MustCompile(`(?i)\bissues? #?\d+`)
	sessionWord = regexp.MustCompile(`(?i)\bsessions?\b`)
	sharedPath  = regexp.MustCompile(`\.\./shared\b`)
)

// TestPages_speakToUsers fails on a page that names an issue by number,
// speaks of sessions or points to files outside the repository.
func TestPages_speakToUsers(t *testing.T) {
	root := repoRoot(t)
	for _, page := range pages(t, root) {
		f, err := os.Open(filepath.Join(root, filepath.FromSlash(page)))
		if err != nil {
			t.Fatal(err)
		}
		sc := bufio.NewScanner(f)
		for n := 1; sc.Scan(); n++ {
			line := sc.Text()
			for _, re := range []*regexp.Regexp{issueNumber, sessionWord, sharedPath} {
				if m := re.FindString(line); m != "" {
					t.Errorf("%s:%d: %q: write for a user who has the repository only (no issue numbers, no sessions, no paths outside it)", page, n, m)
				}
			}
		}
		f.Close()
		if err := sc.Err(); err != nil {
			t.Fatal(err)
		}
	}
}

type link struct {
	line   int
	target string
}

var (
	linkRe     = regexp.MustCompile(`!?\[[^\]]*\]\(([^)\s]+)(?:\s+"[^"]*")?\)`)
	codeSpanRe = regexp.MustCompile("`[^`]*`")
)

// links returns the inline links and images of a markdown text, outside
// fenced code blocks and code spans.
func links(md string) []link {
	var out []link
	fenced := false
	for i, line := range strings.Split(md, "\n") {
		if strings.HasPrefix(strings.TrimSpace(line), "```") {
			fenced = !fenced
			continue
		}
		if fenced {
			continue
		}
		line = codeSpanRe.ReplaceAllString(line, "")
		for _, m := range linkRe.FindAllStringSubmatch(line, -1) {
			out = append(out, link{line: i + 1, target: m[1]})
		}
	}
	return out
}

// external reports whether a link target leaves the repository by design.
func external(target string) bool {
	for _, p := range []string{"http://", "https://", "mailto:"} {
		if strings.HasPrefix(target, p) {
			return true
		}
	}
	return false
}

// headingSlugs returns the anchors GitHub gives the ATX headings of a
// markdown text: lower case, code marks and punctuation dropped, spaces to
// hyphens, "-1", "-2" ... on repeats.
func headingSlugs(md string) []string {
	var out []string
	seen := map[string]int{}
	fenced := false
	for _, line := range strings.Split(md, "\n") {
		if strings.HasPrefix(strings.TrimSpace(line), "```") {
			fenced = !fenced
			continue
		}
		if fenced || !strings.HasPrefix(line, "#") {
			continue
		}
		title := strings.TrimLeft(line, "#")
		if title == "" || title[0] != ' ' {
			continue
		}
		s := slug(strings.TrimSpace(title))
		if n := seen[s]; n > 0 {
			out = append(out, fmt.Sprintf("%s-%d", s, n))
		} else {
			out = append(out, s)
		}
		seen[s]++
	}
	return out
}

func slug(title string) string {
	var b strings.Builder
	for _, r := range strings.ToLower(title) {
		switch {
		case unicode.IsLetter(r), unicode.IsDigit(r), r == '-', r == '_':
			b.WriteRune(r)
		case r == ' ':
			b.WriteByte('-')
		}
	}
	return b.String()
}

// designHeading matches design.md's numbered headings: "## 3. Recall
// pipeline", "### 3.5 Graph: ...".
var designHeading = regexp.MustCompile(`^#{2,4} (\d+(?:\.\d+)?)\.? `)

// designSections returns the section numbers design.md has.
func designSections(md string) map[string]bool {
	out := map[string]bool{}
	for _, line := range strings.Split(md, "\n") {
		if m := designHeading.FindStringSubmatch(line); m != nil {
			out[m[1]] = true
		}
	}
	return out
}
