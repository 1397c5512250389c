package text

import (
	"slices"
	"strings"
	"sync"
	"unicode"
	"unicode/utf8"

	"github.com/holomem/holomem/internal/leaf/lazyre"
)

// EntityKind says how an entity was recognised.
type EntityKind string

// The kinds [Entities] recognises.
const (
	// EntityProper is a capitalised word or phrase: "Alice", "New York",
	// "Москва".
	EntityProper EntityKind = "proper"
	// EntityQuoted is the text inside quotes: "...", «...», '...', “...”,
	// „...“, ‘...’.
	EntityQuoted EntityKind = "quoted"
	// EntityAlias is an entity with other names: "X aka Y", "X a.k.a. Y",
	// "X (aka Y)".
	EntityAlias EntityKind = "alias"
	// EntityTag is a #tag (not #123, which is an issue).
	EntityTag EntityKind = "tag"
	// EntityIssue is an issue or pull request reference, named "#123" or
	// "owner/repo#123" (GH-123 is named "#123").
	EntityIssue EntityKind = "issue"
	// EntityPath is a file path: "cmd/holomem/main.go", "./x.yaml",
	// "/etc/nginx/nginx.conf", "README.md".
	EntityPath EntityKind = "path"
	// EntityIdentifier is a code identifier: snake_case, camelCase,
	// PascalCase with an inner capital, a dotted name such as
	// http.ListenAndServe, a call (named "foo()") or a `code span`.
	EntityIdentifier EntityKind = "identifier"
)

// Limits on what [Entities] returns.
const (
	// MaxEntities is the most entities returned for one text.
	MaxEntities = 64
	// MaxEntityName is the longest name or alias in bytes; longer ones are
	// cut at a rune boundary.
	MaxEntityName = 100
	// maxAliases bounds the aliases merged into one entity.
	maxAliases = 16
	// maxQuoted is the longest quoted text, in runes, that is an entity.
	maxQuoted = 60
)

// Entity is a name found in a text. Name is as written (trimmed); Aliases
// are other names of the same entity, from "X aka Y".
type Entity struct {
	Name    string
	Kind    EntityKind
	Aliases []string
	// Recurring marks a candidate (only from [Extract]) that is an entity
	// only in context. A rare lower-case word (kind term): stores link it
	// when the namespace has the entity or at least [MinTermFacts] facts
	// contain the word. A common word opening a sentence (kind proper,
	// "Kudos", "Zephyr"): stores link it only to an entity the namespace
	// already has.
	Recurring bool
}

// Entities extracts the entities of s deterministically, without a model:
// see the EntityKind constants for what is recognised. Entities are in
// order of first appearance, de-duplicated by [EntityKey] (the first
// spelling wins and later aliases are merged into it), at most
// [MaxEntities], each name at most [MaxEntityName] bytes of valid UTF-8.
// Inside one span the most specific kind wins: issue, path, identifier,
// tag, alias, quoted, proper.
func Entities(s string) []Entity {
	return extract(s, nil, false)
}

// Extract is [Entities] for a stored fact: tags are the fact's tags (a rare
// word among them is a name in its content too), and after the entities
// come the recurring candidates ([Entity.Recurring]), rare lower-case words
// that stores make entities once they recur in the namespace. At most
// [MaxEntities] in all.
func Extract(s string, tags []string) []Entity {
	return extract(s, tags, true)
}

// EntitiesExtract returns [Entities](s) and [Extract](s, nil) from one
// pass over s: the first are the second's first entities. A write needs
// both (hygiene the entities, the fact's HRR vector the recurring
// candidates too), and extracting twice was a fortieth of an add.
func EntitiesExtract(s string) (entities, all []Entity) {
	all, n := extractN(s, nil, true)
	return all[:n:n], all
}

func extract(s string, tags []string, weak bool) []Entity {
	out, _ := extractN(s, tags, weak)
	return out
}

// extractN is extract that also returns how many of its entities are
// [Entities]' (the rest are Extract's recurring candidates).
func extractN(s string, tags []string, weak bool) ([]Entity, int) {
	if !utf8.ValidString(s) {
		s = strings.ToValidUTF8(s, "\uFFFD")
	}
	x := &extractor{s: s, used: make([]bool, len(s))}
	x.urls()
	x.aliases()
	x.codeSpans()
	x.refs()
	x.chunks()
	x.quotes()
	x.propers()
	ev := x.evidence(tags)
	var rest []candidate
	for _, c := range x.weak {
		if c.Kind == EntityTerm && ev[c.Name] {
			c.Recurring = false
			x.cands = append(x.cands, c)
		} else {
			rest = append(rest, c)
		}
	}
	rest = append(rest, x.parts...)
	out := x.result()
	n := len(out)
	if !weak {
		return out, n
	}
	seen := make(map[string]bool, len(out)+len(rest))
	for _, e := range out {
		seen[EntityKey(e.Name)] = true
	}
	slices.SortStableFunc(rest, func(a, b candidate) int { return a.pos - b.pos })
	for _, c := range rest {
		if len(out) == MaxEntities {
			break
		}
		if k := EntityKey(c.Name); !seen[k] {
			seen[k] = true
			out = append(out, c.Entity)
		}
	}
	return out, n
}

// priority orders candidates that start at the same byte.
var priority = map[EntityKind]int{
	EntityIssue: 0, EntityPath: 1, EntityIdentifier: 2, EntityTag: 3,
	EntityAlias: 4, EntityQuoted: 5, EntityProper: 6, EntityTerm: 7,
}

type candidate struct {
	pos int
	Entity
}

type extractor struct {
	s     string
	used  []bool // bytes claimed by a more specific entity or a URL
	cands []candidate
	weak  []candidate // rare words: recurring candidates (see Extract)
	parts []candidate // rare path and identifier components: candidates too
}

func (x *extractor) add(pos int, kind EntityKind, name string, aliases ...string) {
	name = clipName(name)
	if name == "" {
		return
	}
	var as []string
	for _, a := range aliases {
		if a = clipName(a); a != "" {
			as = append(as, a)
		}
	}
	x.cands = append(x.cands, candidate{pos: pos, Entity: Entity{Name: name, Kind: kind, Aliases: as}})
}

func (x *extractor) claim(start, end int) {
	for i := start; i < end; i++ {
		x.used[i] = true
	}
}

func (x *extractor) free(start, end int) bool {
	for i := start; i < end; i++ {
		if x.used[i] {
			return false
		}
	}
	return true
}

// clipName trims name, turns control characters into spaces (collapsing
// the white space around them) and cuts it to MaxEntityName bytes at a rune
// boundary.
func clipName(name string) string {
	if strings.ContainsFunc(name, unicode.IsControl) {
		name = strings.Join(strings.Fields(strings.Map(func(r rune) rune {
			if unicode.IsControl(r) {
				return ' '
			}
			return r
		}, name)), " ")
	}
	name = strings.TrimSpace(name)
	if len(name) <= MaxEntityName {
		return name
	}
	cut := MaxEntityName
	for cut > 0 && !utf8.RuneStart(name[cut]) {
		cut--
	}
	return strings.TrimSpace(name[:cut])
}

func (x *extractor) result() []Entity {
	slices.SortStableFunc(x.cands, func(a, b candidate) int {
		if a.pos != b.pos {
			return a.pos - b.pos
		}
		return priority[a.Kind] - priority[b.Kind]
	})
	var out []Entity
	index := make(map[string]int)
	for _, c := range x.cands {
		key := EntityKey(c.Name)
		if key == "" {
			continue
		}
		i, ok := index[key]
		if !ok {
			if len(out) == MaxEntities {
				continue // later duplicates may still merge aliases
			}
			i = len(out)
			index[key] = i
			kind := c.Kind
			if kind == EntityAlias {
				kind = EntityProper // until an alias that differs is merged
			}
			out = append(out, Entity{Name: c.Name, Kind: kind})
		}
		e := &out[i]
		for _, a := range c.Aliases {
			ak := EntityKey(a)
			if ak == "" || ak == key || len(e.Aliases) >= maxAliases ||
				slices.ContainsFunc(e.Aliases, func(b string) bool { return EntityKey(b) == ak }) {
				continue
			}
			e.Aliases = append(e.Aliases, a)
			e.Kind = EntityAlias
		}
	}
	return out
}

// --- URLs and issue references ---

var (
	urlRE      = lazyre.New(`(?i)\b(?:https?://|www\.)[^\s<>"'\x60]+`)
	ghIssueURL = lazyre.New(`(?i)^(?:https?://)?(?:www\.)?github\.com/([A-Za-z0-9_.-]+)/([A-Za-z0-9_.-]+)/(?:issues|pull|pulls)/([0-9]+)\b`)
	ghShortRef = lazyre.New(`(?i)\bGH-([0-9]+)\b`)
)

// repoRefStart returns where "owner/repo" ends at s[:i] starts, or -1.
func repoRefStart(s string, i int) int {
	isRepo := func(c byte) bool { return isWordByte(c) || c == '.' || c == '-' }
	j := i
	for j > 0 && isRepo(s[j-1]) {
		j--
	}
	if j == i || j == 0 || s[j-1] != '/' {
		return -1
	}
	k := j - 1
	for k > 0 && isRepo(s[k-1]) {
		k--
	}
	if k == j-1 {
		return -1
	}
	return k
}

// trimURL drops trailing punctuation that belongs to the sentence, keeping
// a closing parenthesis that closes one opened inside the URL.
func trimURL(u string) string {
	for len(u) > 0 {
		c := u[len(u)-1]
		switch {
		case strings.IndexByte(".,;:!?'\"]}>*", c) >= 0:
		case c == ')' && strings.Count(u, "(") < strings.Count(u, ")"):
		default:
			return u
		}
		u = u[:len(u)-1]
	}
	return u
}

// issueKeyOfURL returns "owner/repo#123" for a GitHub issue or pull request
// URL, or "".
func issueKeyOfURL(u string) string {
	m := ghIssueURL().FindStringSubmatch(u)
	if m == nil {
		return ""
	}
	return m[1] + "/" + m[2] + "#" + strings.TrimLeft(m[3], "0")
}

func (x *extractor) urls() {
	// Every URL has "://" or "www." (in any case): most texts have neither
	// and skip the regular expression, a tenth of extraction's time.
	if !strings.Contains(x.s, "://") && !containsFold(x.s, "www.") {
		return
	}
	for _, m := range urlRE().FindAllStringIndex(x.s, -1) {
		u := trimURL(x.s[m[0]:m[1]])
		x.claim(m[0], m[0]+len(u))
		if key := issueKeyOfURL(u); key != "" {
			x.add(m[0], EntityIssue, key)
		}
	}
}

// containsFold reports whether s contains sub with ASCII letters compared
// without case; sub must be lower-case ASCII whose letters have no other
// case folding than their upper case (not k or s), as (?i) would match.
func containsFold(s, sub string) bool {
	for i := 0; i+len(sub) <= len(s); i++ {
		j := 0
		for ; j < len(sub); j++ {
			c := s[i+j]
			if 'A' <= c && c <= 'Z' {
				c += 'a' - 'A'
			}
			if c != sub[j] {
				break
			}
		}
		if j == len(sub) {
			return true
		}
	}
	return false
}

func isWordByte(c byte) bool {
	return c == '_' || '0' <= c && c <= '9' || 'a' <= c && c <= 'z' || 'A' <= c && c <= 'Z'
}

// isWordRune reports whether r continues a word: a letter, digit, mark or
// underscore.
func isWordRune(r rune) bool {
	return r == '_' || unicode.IsLetter(r) || unicode.IsDigit(r) || unicode.IsNumber(r) || unicode.IsMark(r)
}

func (x *extractor) runeBefore(i int) rune {
	if i <= 0 {
		return -1
	}
	r, _ := utf8.DecodeLastRuneInString(x.s[:i])
	return r
}

func (x *extractor) runeAt(i int) rune {
	if i >= len(x.s) {
		return -1
	}
	r, _ := utf8.DecodeRuneInString(x.s[i:])
	return r
}

// refs finds #123, owner/repo#123, #tag and GH-123.
func (x *extractor) refs() {
	s := x.s
	for i := 0; i < len(s); i++ {
		if s[i] != '#' || x.used[i] {
			continue
		}
		digits := i + 1
		for digits < len(s) && '0' <= s[digits] && s[digits] <= '9' {
			digits++
		}
		numEnd := digits > i+1 && !isWordRune(x.runeAt(digits))
		prev := x.runeBefore(i)
		if prev >= 0 && prev < utf8.RuneSelf && (isWordByte(byte(prev)) || prev == '.' || prev == '-') {
			// owner/repo#123; anything else glued to a word (C#, a#b) is not a ref.
			from := repoRefStart(s, i)
			if from < 0 || !numEnd || !x.free(from, i) {
				continue
			}
			if b := x.runeBefore(from); b >= 0 && (isWordRune(b) || strings.ContainsRune("/.:-#@", b)) {
				continue
			}
			x.add(from, EntityIssue, s[from:i]+"#"+strings.TrimLeft(s[i+1:digits], "0"))
			x.claim(from, digits)
			continue
		}
		if prev == '&' {
			continue // HTML character reference &#123;
		}
		if numEnd {
			if n := strings.TrimLeft(s[i+1:digits], "0"); n != "" {
				x.add(i, EntityIssue, "#"+n)
			}
			x.claim(i, digits)
			continue
		}
		// #tag: word runes and inner hyphens, with at least one letter.
		end, letter := i+1, false
		for end < len(s) {
			r, n := utf8.DecodeRuneInString(s[end:])
			if isWordRune(r) {
				letter = letter || unicode.IsLetter(r)
			} else if r != '-' {
				break
			}
			end += n
		}
		for end > i+1 && (s[end-1] == '-' || s[end-1] == '_') {
			end--
		}
		if letter {
			x.add(i, EntityTag, s[i:end])
			x.claim(i, end)
		}
	}
	if !containsFold(s, "gh-") {
		return // no GH-123 (the regular expression scans the whole text)
	}
	for _, m := range ghShortRef().FindAllStringSubmatchIndex(s, -1) {
		if !x.free(m[0], m[1]) {
			continue
		}
		if n := strings.TrimLeft(s[m[2]:m[3]], "0"); n != "" {
			x.add(m[0], EntityIssue, "#"+n)
		}
		x.claim(m[0], m[1])
	}
}

// --- code spans, paths and identifiers ---

// codeSpans takes `inline code` without white space as an identifier, path
// or issue ref.
func (x *extractor) codeSpans() {
	s := x.s
	for i := 0; i < len(s); i++ {
		if s[i] != '`' {
			continue
		}
		if i+1 < len(s) && s[i+1] == '`' { // a ``` fence or `` run: skip it
			for i+1 < len(s) && s[i+1] == '`' {
				i++
			}
			continue
		}
		j := strings.IndexByte(s[i+1:], '`')
		if j <= 0 || j > MaxEntityName {
			continue
		}
		code := s[i+1 : i+1+j]
		if !x.free(i, i+j+2) {
			i += j + 1
			continue
		}
		if strings.IndexFunc(code, func(r rune) bool { return unicode.IsSpace(r) || unicode.IsControl(r) }) >= 0 ||
			!strings.ContainsFunc(code, unicode.IsLetter) {
			i += j + 1
			continue
		}
		kind := EntityIdentifier
		if isPath(code) {
			kind = EntityPath
		}
		x.add(i+1, kind, code)
		x.claim(i, i+j+2)
		i += j + 1
	}
}

const (
	chunkLead  = "([{<\"'«“‘„*`"
	chunkTrail = ".,;:!?\"'»”’“*>]}`"
)

// chunks looks at each white-space separated chunk for a path or an
// identifier.
func (x *extractor) chunks() {
	s := x.s
	for i := 0; i < len(s); {
		r, n := utf8.DecodeRuneInString(s[i:])
		if unicode.IsSpace(r) {
			i += n
			continue
		}
		start := i
		for i < len(s) {
			r, n = utf8.DecodeRuneInString(s[i:])
			if unicode.IsSpace(r) {
				break
			}
			i += n
		}
		x.chunk(start, i)
	}
}

// trimChunk strips the punctuation around a chunk: opening brackets and
// quotes before, sentence punctuation and unbalanced closers after. colon
// reports a trailing ':' ("feat(api):" is a commit prefix, not a call).
func (x *extractor) trimChunk(start, end int) (int, int, bool) {
	s := x.s
	for start < end && strings.ContainsRune(chunkLead, x.runeAt(start)) {
		_, n := utf8.DecodeRuneInString(s[start:])
		start += n
	}
	colon := false
	opens, closes := -1, -1 // counted on the first ')' only: trimming must stay linear
	for end > start {
		r, n := utf8.DecodeLastRuneInString(s[start:end])
		if r == ')' {
			if opens < 0 {
				opens, closes = strings.Count(s[start:end], "("), strings.Count(s[start:end], ")")
			}
			if opens >= closes {
				break
			}
			closes--
		} else if !strings.ContainsRune(chunkTrail, r) {
			break
		}
		colon = colon || r == ':'
		end -= n
	}
	return start, end, colon
}

func (x *extractor) chunk(start, end int) {
	s := x.s
	start, end, colon := x.trimChunk(start, end)
	if end <= start || !x.free(start, end) {
		return
	}
	core := s[start:end]
	switch {
	case isPath(core):
		x.add(start, EntityPath, core)
		x.claim(start, end)
	default:
		if name := identifierOf(core, colon); name != "" {
			x.add(start, EntityIdentifier, name)
			x.claim(start, end)
			return
		}
		if x.term(start, core) {
			x.claim(start, end)
		}
	}
}

// knownExt are file extensions that make a lone "name.ext" a path, as a
// set built on first use.
var knownExt = sync.OnceValue(func() map[string]bool {
	m := map[string]bool{}
	for _, e := range strings.Fields(`go mod sum md markdown rst txt yaml yml json jsonl toml ini cfg conf
		env lock py pyi ipynb js mjs cjs ts tsx jsx vue svelte rs c h cc cpp cxx hpp java kt kts swift
		rb php pl lua r jl ex exs erl hs ml scala clj dart nim zig cs fs sh bash zsh fish ps1 bat cmd
		sql db sqlite sqlite3 html htm css scss sass less xml xsd csv tsv log proto graphql gradle tf
		hcl nix pem crt key pub service socket timer png jpg jpeg gif svg webp ico pdf zip gz tgz tar
		bz2 xz zst wasm bin exe dll so dylib patch diff mk cmake dockerfile containerfile plist`) {
		m[e] = true
	}
	return m
})

func isPathRune(r rune) bool {
	return unicode.IsLetter(r) || unicode.IsDigit(r) || strings.ContainsRune("._-~@+", r)
}

// isPath reports whether s looks like a file path: an absolute or relative
// path, two or more slashes, a slash and a file extension, or a lone file
// name with a well-known extension.
func isPath(s string) bool {
	if strings.Contains(s, "://") || !strings.ContainsFunc(s, unicode.IsLetter) {
		return false
	}
	rooted := false
	for _, p := range []string{"/", "./", "../", "~/"} {
		if strings.HasPrefix(s, p) {
			s, rooted = s[len(p):], true
			break
		}
	}
	s = strings.TrimSuffix(s, "/")
	if s == "" {
		return false
	}
	segs := strings.Split(s, "/")
	for _, seg := range segs {
		if seg == "" || strings.IndexFunc(seg, func(r rune) bool { return !isPathRune(r) }) >= 0 {
			return false
		}
	}
	last := segs[len(segs)-1]
	switch {
	case rooted || len(segs) >= 3:
		return true
	case len(segs) == 2:
		// "x/y.go", ".github/workflows", "modernc.org/sqlite"
		return hasExt(last) || segs[0][0] == '.' || last[0] == '.' ||
			strings.Contains(segs[0], ".") && strings.ToLower(segs[0]) == segs[0]
	}
	if last[0] == '.' { // a dotfile: .env, .gitignore (not .NET)
		rest := last[1:]
		return len(rest) >= 2 && !strings.Contains(rest, ".") && strings.ToLower(rest) == rest
	}
	if !hasExt(last) {
		return false
	}
	dot := strings.LastIndexByte(last, '.')
	r, _ := utf8.DecodeRuneInString(last)
	return !(strings.EqualFold(last[dot+1:], "js") && unicode.IsUpper(r)) // Node.js, Vue.js
}

func hasExt(name string) bool {
	dot := strings.LastIndexByte(name, '.')
	if dot <= 0 || dot == len(name)-1 {
		return false
	}
	return knownExt()[strings.ToLower(name[dot+1:])]
}

func isIdentStart(c byte) bool { return c == '_' || 'a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' }

// isIdent reports whether s is an ASCII identifier.
func isIdent(s string) bool {
	if s == "" || !isIdentStart(s[0]) {
		return false
	}
	for i := 1; i < len(s); i++ {
		if !isWordByte(s[i]) {
			return false
		}
	}
	return true
}

// splitQualified splits "a.b::c" into its identifier segments, or returns
// nil when s is not a qualified name.
func splitQualified(s string) []string {
	segs := strings.Split(strings.ReplaceAll(s, "::", "."), ".")
	for _, seg := range segs {
		if !isIdent(seg) {
			return nil
		}
	}
	return segs
}

// codeLike reports whether an identifier is unmistakably code: it has an
// underscore (with a letter) or a capital after a lower-case letter.
func codeLike(id string) bool {
	letters := strings.IndexFunc(id, func(r rune) bool { return r != '_' && unicode.IsLetter(r) }) >= 0
	if strings.Contains(id, "_") {
		return letters && strings.Trim(id, "_") != ""
	}
	lower := false
	for i := 0; i < len(id); i++ {
		c := id[i]
		switch {
		case 'a' <= c && c <= 'z':
			lower = true
		case 'A' <= c && c <= 'Z' && i > 0 && lower:
			return true
		}
	}
	return false
}

// identifierOf returns the identifier entity name of a chunk, or "".
// Calls are named "name()" whatever their arguments.
func identifierOf(core string, colonAfter bool) string {
	if p := strings.IndexByte(core, '('); p > 0 {
		head, rest := core[:p], core[p:]
		if splitQualified(head) == nil || !strings.HasSuffix(rest, ")") {
			return ""
		}
		if rest != "()" && colonAfter {
			return "" // fix(module): is a conventional commit prefix
		}
		return head + "()"
	}
	segs := splitQualified(core)
	switch {
	case len(segs) == 1:
		if codeLike(core) {
			return core
		}
	case len(segs) > 1:
		// Dotted names need a sign of code, so "e.g" and "U.S" stay prose.
		if !slices.ContainsFunc(segs, func(seg string) bool { return len(seg) > 1 }) {
			return ""
		}
		for i, seg := range segs {
			if codeLike(seg) || i > 0 && strings.ContainsFunc(seg, unicode.IsUpper) {
				return core
			}
		}
	}
	return ""
}

// Extraction is Extract(Content, nil), kept by a step that computed it
// (a fact's HRR vector) for a later step on the same text (the store's
// entity links of a fact without tags), so a bulk import extracts each
// fact's entities once. A consumer checks Content against its own text.
// Entities is shared: neither side may change it.
type Extraction struct {
	Content  string
	Entities []Entity
}
