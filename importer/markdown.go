package importer

import (
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"time"
	"unicode"
	"unicode/utf8"

	"github.com/holomem/holomem"
)

// MarkdownSplitBytes is the note size above which [Markdown] makes one fact
// per "##" section instead of one per note.
const MarkdownSplitBytes = 2000

// MarkdownKey returns the external key of a note or of one of its sections:
// "md:<relative path>" or "md:<relative path>#<slug>".
func MarkdownKey(rel, slug string) string {
	if slug == "" {
		return "md:" + rel
	}
	return "md:" + rel + "#" + slug
}

// Markdown imports a folder of notes: every *.md file under root,
// recursively, in sorted path order, skipping hidden files and folders
// (.git, .obsidian). A note may start with front matter between "---"
// lines; title, category, tags (`tags: [a, b]`, `tags: a, b` or a "- a"
// list) and date/created (the fact's time; otherwise the file's
// modification time) are read, other keys ignored.
//
// A note of up to [MarkdownSplitBytes] bytes is one fact keyed
// [MarkdownKey](path, ""). A longer note becomes one fact per "##" section
// (keyed by the section's slug, GitHub style, -1, -2... for repeats) plus
// one for the text before the first section, if any; each section's
// content starts with the note's title so it stands alone. Headings inside
// code fences do not split. A section still above
// holomem.MaxContentBytes is cut into parts keyed slug~2, slug~3...
//
// Unreadable, non-UTF-8 and empty notes are skipped with their path.
func Markdown(root string, fn func(Record) error) (Summary, error) {
	var sum Summary
	info, err := os.Stat(root)
	if err != nil {
		return sum, fmt.Errorf("markdown import: %w", err)
	}
	if !info.IsDir() {
		return sum, fmt.Errorf("%w: markdown import: %s is not a directory", holomem.ErrInvalid, root)
	}
	var paths []string
	err = filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			rel, _ := filepath.Rel(root, p)
			sum.skip(filepath.ToSlash(rel), 0, "%v", err)
			if d != nil && d.IsDir() {
				return fs.SkipDir
			}
			return nil
		}
		name := d.Name()
		if p != root && strings.HasPrefix(name, ".") {
			if d.IsDir() {
				return fs.SkipDir
			}
			return nil
		}
		if !d.IsDir() && strings.EqualFold(filepath.Ext(name), ".md") {
			paths = append(paths, p)
		}
		return nil
	})
	if err != nil {
		return sum, fmt.Errorf("markdown import: walk %s: %w", root, err)
	}
	rels := make([]string, len(paths))
	for i, p := range paths {
		r, _ := filepath.Rel(root, p)
		rels[i] = filepath.ToSlash(r)
	}
	order := make([]int, len(paths))
	for i := range order {
		order[i] = i
	}
	slices.SortFunc(order, func(a, b int) int { return strings.Compare(rels[a], rels[b]) })
	// Notes are read through an os.Root: a symlink that leads outside the
	// directory the user named is refused, not followed.
	dir, err := os.OpenRoot(root)
	if err != nil {
		return sum, fmt.Errorf("markdown import: %w", err)
	}
	defer dir.Close()
	for _, i := range order {
		rel := filepath.FromSlash(rels[i])
		st, err := dir.Stat(rel) // follows links, within root only
		if err != nil {
			sum.skip(rels[i], 0, "not read: %v", err)
			continue
		}
		// A FIFO or device named *.md would block or never end.
		if !st.Mode().IsRegular() {
			sum.skip(rels[i], 0, "not a regular file (%s)", st.Mode().Type())
			continue
		}
		if st.Size() > maxNoteBytes {
			sum.skip(rels[i], 0, "%d bytes; notes above %d bytes are not imported", st.Size(), maxNoteBytes)
			continue
		}
		b, err := readNote(dir, rel)
		if err != nil {
			sum.skip(rels[i], 0, "read: %v", err)
			continue
		}
		mod := st.ModTime().UTC()
		for _, rec := range markdownRecords(rels[i], b, mod, &sum) {
			if err := sum.emit(fn, rec); err != nil {
				return sum, err
			}
		}
	}
	return sum, nil
}

// maxNoteBytes bounds one note: larger files are not notes.
const maxNoteBytes = 16 << 20

// readNote reads one note of dir, at most maxNoteBytes.
func readNote(dir *os.Root, rel string) ([]byte, error) {
	f, err := dir.Open(rel)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	return io.ReadAll(io.LimitReader(f, maxNoteBytes+1))
}

// frontMatter is what a note's front matter says.
type frontMatter struct {
	title, category string
	tags            []string
	date            time.Time
}

// markdownRecords turns one note into facts.
func markdownRecords(rel string, b []byte, mod time.Time, sum *Summary) []Record {
	if !utf8.Valid(b) {
		sum.skip(rel, 0, "not valid UTF-8: re-encode the note as UTF-8")
		return nil
	}
	text := strings.ReplaceAll(strings.ReplaceAll(string(b), "\r\n", "\n"), "\x00", "")
	text = strings.TrimPrefix(text, "\uFEFF")
	fm, body := parseFrontMatter(text)
	body = strings.TrimSpace(body)
	if body == "" {
		sum.skip(rel, 0, "empty note")
		return nil
	}
	title := fm.title
	if title == "" {
		title = firstHeading(body)
	}
	if title == "" {
		title = strings.TrimSuffix(filepath.Base(rel), filepath.Ext(rel))
	}
	created := fm.date
	if created.IsZero() {
		created = mod
	}
	newFact := func(content string) *holomem.Fact {
		return &holomem.Fact{
			Content: content, Category: cleanLabel(fm.category), Tags: cleanTags(fm.tags),
			Source: SourceMarkdown, CreatedAt: created, UpdatedAt: created,
		}
	}
	withTitle := func(s string) string {
		if strings.HasPrefix(s, "# ") {
			return s
		}
		return "# " + title + "\n\n" + s
	}

	var recs []Record
	addParts := func(slug, content string) {
		for i, part := range splitBytes(content, holomem.MaxContentBytes) {
			s := slug
			if i > 0 {
				s = slug + "~" + strconv.Itoa(i+1)
			}
			key := MarkdownKey(rel, s)
			recs = append(recs, Record{Key: key, Fact: withKey(newFact(part), key)})
		}
	}
	if len(body) <= MarkdownSplitBytes {
		content := body
		if fm.title != "" && firstHeading(body) == "" {
			content = withTitle(body)
		}
		addParts("", content)
		return recs
	}
	pre, sections := splitSections(body)
	if strings.TrimSpace(stripTitle(pre)) != "" {
		addParts("", withTitle(strings.TrimSpace(pre)))
	}
	seen := map[string]int{}
	for _, s := range sections {
		slug := slugify(s.heading)
		if n := seen[slug]; n > 0 {
			seen[slug] = n + 1
			slug = slug + "-" + strconv.Itoa(n)
		} else {
			seen[slug] = 1
		}
		addParts(slug, "# "+title+"\n\n"+strings.TrimSpace(s.text))
	}
	return recs
}

func withKey(f *holomem.Fact, key string) *holomem.Fact {
	f.ExternalKey = key
	return f
}

// parseFrontMatter splits a leading "---" block off text.
func parseFrontMatter(text string) (frontMatter, string) {
	var fm frontMatter
	if !strings.HasPrefix(text, "---\n") {
		return fm, text
	}
	rest := text[4:]
	end := -1
	lines := strings.SplitAfter(rest, "\n")
	off := 0
	for _, l := range lines {
		if t := strings.TrimRight(l, " \t\n"); t == "---" || t == "..." {
			end = off
			break
		}
		off += len(l)
	}
	if end < 0 {
		return fm, text // no closing line: not front matter
	}
	block, body := rest[:end], rest[end:]
	if i := strings.IndexByte(body, '\n'); i >= 0 {
		body = body[i+1:]
	} else {
		body = ""
	}
	var listKey string
	for _, l := range strings.Split(block, "\n") {
		if t := strings.TrimSpace(l); strings.HasPrefix(t, "- ") && listKey == "tags" {
			fm.tags = append(fm.tags, unquote(strings.TrimSpace(t[2:])))
			continue
		}
		k, v, ok := strings.Cut(l, ":")
		if !ok || strings.HasPrefix(l, " ") {
			continue
		}
		k, v = strings.ToLower(strings.TrimSpace(k)), strings.TrimSpace(v)
		listKey = k
		switch k {
		case "title":
			fm.title = unquote(v)
		case "category":
			fm.category = unquote(v)
		case "tags", "tag":
			listKey = "tags"
			v = strings.TrimSuffix(strings.TrimPrefix(v, "["), "]")
			for _, t := range strings.FieldsFunc(v, func(r rune) bool { return r == ',' }) {
				if t = unquote(strings.TrimSpace(t)); t != "" {
					fm.tags = append(fm.tags, t)
				}
			}
		case "date", "created", "created_at":
			fm.date = parseDate(unquote(v))
		}
	}
	return fm, body
}

func unquote(s string) string {
	if len(s) >= 2 && (s[0] == '"' && s[len(s)-1] == '"' || s[0] == '\'' && s[len(s)-1] == '\'') {
		return s[1 : len(s)-1]
	}
	return s
}

func parseDate(s string) time.Time {
	for _, layout := range []string{time.RFC3339, "2006-01-02 15:04:05", "2006-01-02T15:04:05", "2006-01-02 15:04", "2006-01-02"} {
		if t, err := time.Parse(layout, s); err == nil {
			return t.UTC()
		}
	}
	return time.Time{}
}

// firstHeading returns the text of the first "# " line outside code fences.
func firstHeading(body string) string {
	fence := false
	for _, l := range strings.Split(body, "\n") {
		if isFence(l) {
			fence = !fence
			continue
		}
		if !fence && strings.HasPrefix(l, "# ") {
			return strings.TrimSpace(l[2:])
		}
	}
	return ""
}

// stripTitle drops a leading "# " line.
func stripTitle(s string) string {
	s = strings.TrimSpace(s)
	if strings.HasPrefix(s, "# ") {
		if i := strings.IndexByte(s, '\n'); i >= 0 {
			return s[i+1:]
		}
		return ""
	}
	return s
}

func isFence(l string) bool {
	t := strings.TrimLeft(l, " ")
	return strings.HasPrefix(t, "```") || strings.HasPrefix(t, "~~~")
}

type section struct {
	heading string
	text    string // including the "## heading" line
}

// splitSections cuts body at "## " lines outside code fences.
func splitSections(body string) (string, []section) {
	var pre strings.Builder
	var out []section
	fence := false
	for _, l := range strings.SplitAfter(body, "\n") {
		if isFence(l) {
			fence = !fence
		}
		if !fence && strings.HasPrefix(l, "## ") {
			out = append(out, section{heading: strings.TrimSpace(l[3:])})
		}
		if len(out) == 0 {
			pre.WriteString(l)
		} else {
			out[len(out)-1].text += l
		}
	}
	return pre.String(), out
}

// slugify makes a GitHub-style anchor: lower case, letters, digits, '-'
// and '_', spaces as '-'.
func slugify(h string) string {
	var b strings.Builder
	for _, r := range strings.ToLower(strings.TrimSpace(h)) {
		switch {
		case unicode.IsLetter(r) || unicode.IsDigit(r) || r == '-' || r == '_':
			b.WriteRune(r)
		case r == ' ':
			b.WriteByte('-')
		}
	}
	if b.Len() == 0 {
		return "section"
	}
	return b.String()
}

// splitBytes cuts s into parts of at most max bytes at line boundaries
// (or rune boundaries for a longer line).
func splitBytes(s string, max int) []string {
	var out []string
	for len(s) > max {
		cut := strings.LastIndexByte(s[:max], '\n')
		if cut <= 0 {
			cut = max
			for cut > 0 && !utf8.RuneStart(s[cut]) {
				cut--
			}
		}
		if p := strings.TrimSpace(s[:cut]); p != "" {
			out = append(out, p)
		}
		s = s[cut:]
	}
	if p := strings.TrimSpace(s); p != "" {
		out = append(out, p)
	}
	return out
}
