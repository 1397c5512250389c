package importer

import (
	"bufio"
	"cmp"
	"context"
	"fmt"
	"hash/fnv"
	"io"
	"io/fs"
	"os"
	"os/exec"
	"path"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"time"
	"unicode"
	"unicode/utf8"

	"github.com/holomem/holomem"
)

// MarkdownKey returns the external key of a document chunk:
// "md:<path>" for the text before the first heading, "md:<path>#<slugs>"
// for a section (the slugs of its heading path joined by "/", GitHub
// style), with "~2", "~3"... for the further parts of a long section.
func MarkdownKey(rel, slug string) string {
	if slug == "" {
		return "md:" + rel
	}
	return "md:" + rel + "#" + slug
}

// CategoryDoc is the category of document chunks without a category of
// their own (front matter).
const CategoryDoc = "doc"

// ReasonNextChunk names the temporal links from each chunk of a document
// to the next one.
const ReasonNextChunk = "next_chunk"

// DocOptions tune [Markdown]. The zero value uses [DefaultChunkTokens].
type DocOptions struct {
	// ChunkTokens bounds each chunk: [EstimateTokens] of its whole content,
	// heading path included, is at most this. 0 means [DefaultChunkTokens].
	ChunkTokens int
	// GitPath is the git binary that dates files; empty means "git" on PATH.
	GitPath string
}

// docExts are the file types [Markdown] reads in a folder.
var docExts = map[string]string{
	".md": "markdown", ".markdown": "markdown", ".txt": "text", ".html": "html", ".htm": "html",
}

// Markdown imports documents as bounded chunks: a file, or every .md,
// .markdown, .txt, .html and .htm file under a folder, recursively, in
// sorted path order, skipping hidden files and folders (.git, .obsidian).
//
// Markdown is cut at every heading (ATX "#" to "######", setext "==="
// and "---" underlines, HTML <h1> to <h6>; not inside code fences), HTML
// at <h1> to <h6> with tags stripped and entities decoded, plain text only
// at paragraphs. A section longer than the bound is cut at paragraphs,
// then sentences (lines, for code and lists), then anywhere as a last
// resort. Each chunk is one fact whose content starts with its heading
// path ("docs/GUIDE.md > Configuration > Config file"), so the path is
// indexed and shown with the text, keyed [MarkdownKey], category
// [CategoryDoc], and linked to the next chunk of its document by a
// temporal edge (reason [ReasonNextChunk]). Paths in keys are relative to
// the git work tree when the documents are in one, so importing a folder
// or its repository gives the same keys; otherwise to the folder.
//
// A chunk is dated by its front matter's date, else by the file's last
// commit when the file is in a git repository, else by its modification
// time. Markdown front matter between "---" lines gives title (the top of
// every heading path), category, tags (`tags: [a, b]`, `tags: a, b` or a
// "- a" list) and date/created; other keys are ignored.
//
// Every record names its document (Record.Doc) so [Run] can update the
// chunks that changed and forget the ones that vanished on a re-import.
// Unreadable, non-UTF-8 and empty files are skipped with their path.
func Markdown(ctx context.Context, root string, fn func(Record) error, opts DocOptions) (Summary, error) {
	var sum Summary
	tokens := cmp.Or(opts.ChunkTokens, DefaultChunkTokens)
	if tokens < MinChunkTokens || tokens > MaxChunkTokens {
		return sum, fmt.Errorf("%w: chunk size %d tokens: use %d to %d", holomem.ErrInvalid, tokens, MinChunkTokens, MaxChunkTokens)
	}
	info, err := os.Stat(root)
	if err != nil {
		return sum, fmt.Errorf("markdown import: %w", err)
	}
	only := ""
	if !info.IsDir() {
		if !info.Mode().IsRegular() {
			return sum, fmt.Errorf("%w: markdown import: %s is not a file or a directory", holomem.ErrInvalid, root)
		}
		root, only = filepath.Dir(root), filepath.Base(root)
	}
	var paths []string
	if only != "" {
		paths = []string{filepath.Join(root, only)}
	} else {
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
			if _, ok := docExts[strings.ToLower(filepath.Ext(name))]; ok && !d.IsDir() {
				paths = append(paths, p)
			}
			return nil
		})
		if err != nil {
			return sum, fmt.Errorf("markdown import: walk %s: %w", root, err)
		}
	}
	rels := make([]string, len(paths))
	for i, p := range paths {
		r, _ := filepath.Rel(root, p)
		rels[i] = filepath.ToSlash(r)
	}
	slices.Sort(rels)
	gitBin := cmpOr(opts.GitPath, "git")
	top, prefix := gitWorkTree(ctx, gitBin, root)
	keyRels := make([]string, len(rels))
	for i, r := range rels {
		keyRels[i] = path.Join(prefix, r)
	}
	var dates map[string]time.Time
	if top != "" {
		dates = gitDates(ctx, gitBin, top, keyRels)
	}
	// Notes are read through an os.Root: a symlink that leads outside the
	// directory the user named is refused, not followed.
	dir, err := os.OpenRoot(root)
	if err != nil {
		return sum, fmt.Errorf("markdown import: %w", err)
	}
	defer dir.Close()
	for i, r := range rels {
		if err := ctx.Err(); err != nil {
			return sum, err
		}
		rel := filepath.FromSlash(r)
		st, err := dir.Stat(rel) // follows links, within root only
		if err != nil {
			sum.skip(r, 0, "not read: %v", err)
			continue
		}
		// A FIFO or device named *.md would block or never end.
		if !st.Mode().IsRegular() {
			sum.skip(r, 0, "not a regular file (%s)", st.Mode().Type())
			continue
		}
		if st.Size() > maxNoteBytes {
			sum.skip(r, 0, "%d bytes; documents above %d bytes are not imported", st.Size(), maxNoteBytes)
			continue
		}
		if !keyOK(MarkdownKey(keyRels[i], shortHash("")+"~9999")) {
			sum.skip(r, 0, "the path cannot be a key: it is too long or holds control characters")
			continue
		}
		b, err := readNote(dir, rel)
		if err != nil {
			sum.skip(r, 0, "read: %v", err)
			continue
		}
		date, ok := dates[keyRels[i]]
		if !ok {
			date = st.ModTime().UTC()
		}
		kind := docExts[strings.ToLower(filepath.Ext(r))]
		for _, rec := range docRecords(keyRels[i], kind, b, date, tokens, &sum) {
			if err := sum.emit(fn, rec); err != nil {
				return sum, err
			}
		}
	}
	return sum, nil
}

// gitWorkTree returns the top of the git work tree holding dir and dir's
// path in it ("" for the top itself), or "", "" outside git.
func gitWorkTree(ctx context.Context, gitBin, dir string) (top, rel string) {
	out, err := exec.CommandContext(ctx, gitBin, "-C", dir, "rev-parse", "--show-toplevel").Output()
	if err != nil {
		return "", ""
	}
	top = strings.TrimSpace(string(out))
	abs, err := filepath.Abs(dir)
	if err != nil {
		return "", ""
	}
	if t, err := filepath.EvalSymlinks(top); err == nil {
		top = t
	}
	if a, err := filepath.EvalSymlinks(abs); err == nil {
		abs = a
	}
	r, err := filepath.Rel(top, abs)
	if err != nil || r == ".." || strings.HasPrefix(r, ".."+string(filepath.Separator)) {
		return "", ""
	}
	if r == "." {
		r = ""
	}
	return top, filepath.ToSlash(r)
}

// gitDates returns the committer date of the last commit of each file
// (paths relative to the work tree top), reading the history once, newest
// first, until every file is dated. Files not in HEAD's tree (untracked,
// not committed yet) are left out.
func gitDates(ctx context.Context, gitBin, top string, files []string) map[string]time.Time {
	dates := map[string]time.Time{}
	// Only files of HEAD have a last commit: waiting for another would
	// read the whole history.
	tree, err := exec.CommandContext(ctx, gitBin, "-C", top, "ls-tree", "-r", "-z", "--name-only", "HEAD").Output()
	if err != nil {
		return dates
	}
	inHead := map[string]bool{}
	for _, f := range strings.Split(string(tree), "\x00") {
		inHead[f] = true
	}
	want := make(map[string]bool, len(files))
	for _, f := range files {
		if inHead[f] {
			want[f] = true
		}
	}
	if len(want) == 0 {
		return dates
	}
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	cmd := exec.CommandContext(ctx, gitBin, "-C", top, "-c", "core.quotepath=off", "log", "--no-color", "--no-renames",
		"--format="+gitRS+"%cI", "--name-only", "HEAD", "--")
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		return dates
	}
	if err := cmd.Start(); err != nil {
		return dates
	}
	sc := bufio.NewScanner(stdout)
	sc.Buffer(make([]byte, 0, 64<<10), 1<<20)
	var cur time.Time
	for sc.Scan() && len(dates) < len(want) {
		l := sc.Text()
		if d, ok := strings.CutPrefix(l, gitRS); ok {
			cur, _ = time.Parse(time.RFC3339, strings.TrimSpace(d))
			continue
		}
		if l != "" && want[l] && !cur.IsZero() {
			if _, seen := dates[l]; !seen {
				dates[l] = cur.UTC()
			}
		}
	}
	cancel()
	_, _ = io.Copy(io.Discard, stdout)
	_ = cmd.Wait()
	return dates
}

// keyOK reports whether k can be stored as an external key.
func keyOK(k string) bool {
	if len(k) > holomem.MaxLabelBytes || !utf8.ValidString(k) {
		return false
	}
	for _, r := range k {
		if unicode.IsControl(r) || unicode.In(r, unicode.Cf, unicode.Zl, unicode.Zp) {
			return false
		}
	}
	return true
}

// maxNoteBytes bounds one document: larger files are not documents.
const maxNoteBytes = 16 << 20

// readNote reads one file of dir, at most maxNoteBytes.
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

// docRecords turns one document (kind markdown, text or html) into chunk
// records of at most tokens estimated tokens each.
func docRecords(rel, kind string, b []byte, mod time.Time, tokens int, sum *Summary) []Record {
	if !utf8.Valid(b) {
		sum.skip(rel, 0, "not valid UTF-8: re-encode the file as UTF-8")
		return nil
	}
	text := strings.ReplaceAll(strings.ReplaceAll(string(b), "\r\n", "\n"), "\x00", "")
	text = strings.TrimPrefix(text, "\uFEFF")
	var fm frontMatter
	var sections []docSection
	switch kind {
	case "html":
		sections = htmlSections(text)
	case "text":
		if t := strings.TrimSpace(text); t != "" {
			sections = []docSection{{body: t}}
		}
	default:
		var body string
		fm, body = parseFrontMatter(text)
		sections = markdownSections(body)
	}
	if len(sections) == 0 {
		sum.skip(rel, 0, "empty document")
		return nil
	}
	created := fm.date
	if created.IsZero() {
		created = mod
	}
	category := cleanLabel(fm.category)
	if category == "" {
		category = CategoryDoc
	}
	tags := cleanTags(fm.tags)
	title := collapseSpace(fm.title)
	bound := tokens * 4 // runes
	doc := MarkdownKey(rel, "")
	var recs []Record
	seen := map[string]int{}
	prev := ""
	for _, s := range sections {
		p := s.path
		if title != "" && (len(p) == 0 || p[0] != title) {
			p = append([]string{title}, p...)
		}
		slug := slugPath(p)
		if n := seen[slug]; n > 0 {
			seen[slug] = n + 1
			slug += "-" + strconv.Itoa(n)
		} else {
			seen[slug] = 1
		}
		head := strings.Join(append([]string{rel}, p...), " > ")
		if utf8.RuneCountInString(head) > bound/2 {
			head = cutRunes(head, bound/2-1) + "…"
		}
		budget := bound - utf8.RuneCountInString(head) - 2
		for i, part := range chunkBody(s.body, budget) {
			sl := slug
			if i > 0 {
				sl += "~" + strconv.Itoa(i+1)
			}
			key := MarkdownKey(rel, sl)
			if !keyOK(key) {
				key = MarkdownKey(rel, shortHash(sl))
			}
			rec := Record{Key: key, Doc: doc, Fact: &holomem.Fact{
				Content: head + "\n\n" + part, Category: category, Tags: tags,
				Source: SourceMarkdown, ExternalKey: key, CreatedAt: created, UpdatedAt: created,
			}}
			if prev != "" {
				var ls linkSet
				ls.add(prev, key, holomem.EdgeTemporal, ReasonNextChunk)
				rec.Links = ls.links
			}
			prev = key
			recs = append(recs, rec)
		}
	}
	return recs
}

// slugPath joins the slugs of a heading path with "/".
func slugPath(p []string) string {
	s := make([]string, len(p))
	for i, h := range p {
		s[i] = slugify(h)
	}
	return strings.Join(s, "/")
}

// shortHash stands for a slug path too long for a key.
func shortHash(s string) string {
	h := fnv.New64a()
	h.Write([]byte(s))
	return fmt.Sprintf("h%016x", h.Sum64())
}

// cutRunes returns the first n runes of s.
func cutRunes(s string, n int) string {
	i := 0
	for k := 0; k < n && i < len(s); k++ {
		_, size := utf8.DecodeRuneInString(s[i:])
		i += size
	}
	return s[:i]
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
