package importer

import (
	"html"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/holomem/holomem/internal/leaf/lazyre"
)

// DefaultChunkTokens is the size a document chunk is held to, in
// estimated tokens ([EstimateTokens]): about two paragraphs, small enough
// that a hit is the passage that answers, not the whole guide around it,
// and that a few hits fit an agent's context.
const DefaultChunkTokens = 300

// MinChunkTokens is the smallest chunk size an import accepts: below it the
// heading path alone would fill a chunk.
const MinChunkTokens = 32

// MaxChunkTokens is the largest chunk size an import accepts.
const MaxChunkTokens = 16000

// EstimateTokens estimates the tokens of s as the prompt hook budgets
// them: one token per four characters (runes), rounded up.
func EstimateTokens(s string) int {
	return (utf8.RuneCountInString(s) + 3) / 4
}

// docSection is the text under one heading, up to the next heading of any
// level.
type docSection struct {
	// path is the heading texts from the document's outermost heading down
	// to this one; empty for the text before the first heading.
	path []string
	body string
}

// sectionWriter gathers sections as a parser meets headings and text.
type sectionWriter struct {
	stack []heading
	body  strings.Builder
	out   []docSection
}

type heading struct {
	level int
	text  string
}

// flush ends the current section.
func (w *sectionWriter) flush() {
	if b := strings.TrimSpace(w.body.String()); b != "" {
		path := make([]string, len(w.stack))
		for i, h := range w.stack {
			path[i] = h.text
		}
		w.out = append(w.out, docSection{path: path, body: b})
	}
	w.body.Reset()
}

// heading starts a section under a heading of the given level (1-6):
// headings of the same or a deeper level leave the path.
func (w *sectionWriter) heading(level int, text string) {
	w.flush()
	for len(w.stack) > 0 && w.stack[len(w.stack)-1].level >= level {
		w.stack = w.stack[:len(w.stack)-1]
	}
	text = collapseSpace(mdLinkRE().ReplaceAllString(tagRE().ReplaceAllString(text, ""), "$1"))
	if text == "" {
		text = "untitled"
	}
	w.stack = append(w.stack, heading{level, text})
}

var (
	atxRE      = lazyre.New(`^ {0,3}(#{1,6})(?:[ \t]+(.*?))?(?:[ \t]+#+)?[ \t]*$`)
	setextRE   = lazyre.New(`^ {0,3}(=+|-{2,})[ \t]*$`)
	htmlOpenRE = lazyre.New(`(?i)^[ \t]*<h([1-6])(?:[\s>]|$)`)
	tagRE      = lazyre.New(`<[^>]*>`)
	mdLinkRE   = lazyre.New(`!?\[([^\]]*)\]\([^)]*\)`)
	listLineRE = lazyre.New(`^ {0,3}(?:[-*+](?:[ \t]|$)|\d+[.)](?:[ \t]|$)|>|\|)`)
)

// fenceOf returns the fence a line opens or closes ("```", "~~~~"), or "".
func fenceOf(l string) string {
	t := strings.TrimLeft(l, " ")
	if len(l)-len(t) > 3 || len(t) < 3 || (t[0] != '`' && t[0] != '~') {
		return ""
	}
	n := 0
	for n < len(t) && t[n] == t[0] {
		n++
	}
	if n < 3 {
		return ""
	}
	return t[:n]
}

// markdownSections cuts a Markdown body at its headings: ATX ("#" to
// "######"), setext (a line underlined with "===" or "---") and HTML
// (<h1> to <h6>, possibly over a few lines). Lines inside fenced code
// blocks are never headings.
func markdownSections(body string) []docSection {
	lines := strings.Split(body, "\n")
	var w sectionWriter
	fence := ""
	prevBlank := true // the line before is blank or a heading
	for i := 0; i < len(lines); i++ {
		l := lines[i]
		if fence != "" {
			if f := fenceOf(l); f != "" && f[0] == fence[0] && len(f) >= len(fence) && strings.TrimSpace(strings.TrimLeft(l, " ")[len(f):]) == "" {
				fence = ""
			}
			w.body.WriteString(l + "\n")
			continue
		}
		if f := fenceOf(l); f != "" && !(f[0] == '`' && strings.Contains(strings.TrimLeft(l, " ")[len(f):], "`")) {
			fence = f
			w.body.WriteString(l + "\n")
			prevBlank = false
			continue
		}
		if m := atxRE().FindStringSubmatch(l); m != nil {
			w.heading(len(m[1]), m[2])
			prevBlank = true
			continue
		}
		if m := htmlOpenRE().FindStringSubmatch(l); m != nil {
			closing := "</h" + m[1] + ">"
			joined := l
			end := -1
			for j := i; j < len(lines) && j < i+6; j++ {
				if j > i {
					joined += " " + lines[j]
				}
				if strings.Contains(strings.ToLower(lines[j]), closing) {
					end = j
					break
				}
			}
			if end >= 0 {
				low := strings.ToLower(joined)
				cut := strings.Index(low, closing)
				w.heading(int(m[1][0]-'0'), htmlText(joined[:cut]))
				if rest := strings.TrimSpace(joined[cut+len(closing):]); rest != "" {
					w.body.WriteString(rest + "\n")
				}
				i = end
				prevBlank = true
				continue
			}
		}
		if prevBlank && strings.TrimSpace(l) != "" && i+1 < len(lines) && !listLineRE().MatchString(l) {
			if m := setextRE().FindStringSubmatch(lines[i+1]); m != nil {
				level := 1
				if m[1][0] == '-' {
					level = 2
				}
				w.heading(level, strings.TrimSpace(l))
				i++
				prevBlank = true
				continue
			}
		}
		w.body.WriteString(l + "\n")
		prevBlank = strings.TrimSpace(l) == ""
	}
	w.flush()
	return w.out
}

// htmlText strips tags from an HTML fragment, decodes its entities and
// collapses its white space.
func htmlText(s string) string {
	return collapseSpace(html.UnescapeString(tagRE().ReplaceAllString(s, " ")))
}

func collapseSpace(s string) string {
	return strings.Join(strings.Fields(s), " ")
}

// htmlBlockTags end a line of text in an HTML document.
var htmlBlockTags = map[string]string{
	"p": "\n\n", "div": "\n\n", "section": "\n\n", "article": "\n\n", "main": "\n\n",
	"header": "\n\n", "footer": "\n\n", "blockquote": "\n\n", "pre": "\n\n", "table": "\n\n",
	"ul": "\n\n", "ol": "\n\n", "dl": "\n\n", "hr": "\n\n", "figure": "\n\n", "nav": "\n\n",
	"br": "\n", "tr": "\n", "dt": "\n", "dd": "\n", "li": "\n- ", "td": " ", "th": " ",
}

// htmlSections reads an HTML document: text under <h1> to <h6> headings,
// tags stripped and entities decoded, <script>, <style>, <head> and
// comments dropped, block elements as line or paragraph breaks, <pre> kept
// as written.
func htmlSections(doc string) []docSection {
	var w sectionWriter
	var text strings.Builder // text since the last tag
	inHeading := 0
	var headText strings.Builder
	pre := 0
	emit := func() {
		s := html.UnescapeString(text.String())
		text.Reset()
		if s == "" {
			return
		}
		if pre == 0 {
			// Runs of white space are one space outside <pre>, and none at
			// the start of a line.
			lead := unicode.IsSpace(rune(s[0]))
			trail := unicode.IsSpace(rune(s[len(s)-1]))
			s = collapseSpace(s)
			if lead {
				s = " " + s
			}
			if trail && s != " " {
				s += " "
			}
		}
		if inHeading > 0 {
			headText.WriteString(s)
			return
		}
		if b := w.body.String(); pre == 0 && (b == "" || strings.HasSuffix(b, "\n") || strings.HasSuffix(b, " ")) {
			s = strings.TrimLeft(s, " ")
		}
		w.body.WriteString(s)
	}
	for i := 0; i < len(doc); {
		if doc[i] != '<' {
			j := strings.IndexByte(doc[i:], '<')
			if j < 0 {
				j = len(doc) - i
			}
			text.WriteString(doc[i : i+j])
			i += j
			continue
		}
		if strings.HasPrefix(doc[i:], "<!--") {
			emit()
			j := strings.Index(doc[i+4:], "-->")
			if j < 0 {
				break
			}
			i += 4 + j + 3
			continue
		}
		j := strings.IndexByte(doc[i:], '>')
		if j < 0 {
			text.WriteString(doc[i:])
			break
		}
		tag := doc[i+1 : i+j]
		i += j + 1
		closing := strings.HasPrefix(tag, "/")
		name := strings.ToLower(strings.TrimLeft(tag, "/!?"))
		if k := strings.IndexAny(name, " \t\n\r/"); k >= 0 {
			name = name[:k]
		}
		emit()
		switch {
		case !closing && (name == "script" || name == "style" || name == "head" || name == "title" || name == "template"):
			end := strings.Index(strings.ToLower(doc[i:]), "</"+name)
			if end < 0 {
				i = len(doc)
			} else {
				i += end
			}
		case len(name) == 2 && name[0] == 'h' && name[1] >= '1' && name[1] <= '6':
			if !closing {
				inHeading = int(name[1] - '0')
				headText.Reset()
			} else if inHeading > 0 {
				w.heading(inHeading, headText.String())
				inHeading = 0
			}
		case name == "pre":
			if closing {
				pre = max(0, pre-1)
			} else {
				pre++
			}
			w.body.WriteString("\n\n")
		default:
			sep, ok := htmlBlockTags[name]
			switch {
			case !ok:
			case inHeading > 0:
				headText.WriteString(" ")
			case name == "li":
				if !closing {
					w.body.WriteString("\n- ")
				}
			default:
				w.body.WriteString(sep)
			}
		}
	}
	emit()
	if inHeading > 0 {
		w.heading(inHeading, headText.String())
	}
	w.flush()
	// Tidy the bodies: trailing spaces, at most one blank line in a row.
	for k := range w.out {
		w.out[k].body = tidyLines(w.out[k].body)
	}
	return w.out
}

// tidyLines trims each line's ends and keeps at most one blank line in a row.
func tidyLines(s string) string {
	var b strings.Builder
	blank := 0
	for _, l := range strings.Split(s, "\n") {
		l = strings.TrimRight(l, " \t")
		if strings.TrimSpace(l) == "" {
			blank++
			continue
		}
		if b.Len() > 0 {
			b.WriteString(map[bool]string{true: "\n\n", false: "\n"}[blank > 0])
		}
		blank = 0
		b.WriteString(l)
	}
	return b.String()
}

// chunkBody cuts a section's body into pieces of at most budget runes:
// whole paragraphs (blank-line separated; a fenced code block is one
// paragraph) as long as they fit, a longer paragraph at its sentences (its
// lines, for code, lists and tables), and a longer sentence at the last
// space before the bound, or anywhere as a last resort.
func chunkBody(body string, budget int) []string {
	type unit struct {
		text string
		sep  string // joins it to the unit before it in the same chunk
		n    int    // runes
	}
	var units []unit
	add := func(s, sep string) {
		if s = strings.TrimSpace(s); s != "" {
			units = append(units, unit{s, sep, utf8.RuneCountInString(s)})
		}
	}
	for _, para := range paragraphs(body) {
		if utf8.RuneCountInString(para) <= budget {
			add(para, "\n\n")
			continue
		}
		pieces, sep := sentences(para), " "
		if isLineBlock(para) {
			pieces, sep = strings.Split(para, "\n"), "\n"
		}
		first := true
		for _, p := range pieces {
			for _, cut := range hardCut(strings.TrimSpace(p), budget) {
				s := sep
				if first {
					s = "\n\n"
				}
				add(cut, s)
				first = false
			}
		}
	}
	var out []string
	var cur strings.Builder
	n := 0
	for _, u := range units {
		if n > 0 && n+utf8.RuneCountInString(u.sep)+u.n <= budget {
			cur.WriteString(u.sep)
			cur.WriteString(u.text)
			n += utf8.RuneCountInString(u.sep) + u.n
			continue
		}
		if n > 0 {
			out = append(out, cur.String())
			cur.Reset()
		}
		cur.WriteString(u.text)
		n = u.n
	}
	if n > 0 {
		out = append(out, cur.String())
	}
	return out
}

// paragraphs splits s at blank lines outside fenced code blocks.
func paragraphs(s string) []string {
	var out []string
	var cur strings.Builder
	fence := ""
	for _, l := range strings.Split(s, "\n") {
		if f := fenceOf(l); f != "" {
			switch {
			case fence == "":
				fence = f
			case f[0] == fence[0] && len(f) >= len(fence):
				fence = ""
			}
		}
		if fence == "" && strings.TrimSpace(l) == "" {
			if cur.Len() > 0 {
				out = append(out, strings.TrimRight(cur.String(), "\n"))
				cur.Reset()
			}
			continue
		}
		cur.WriteString(l)
		cur.WriteByte('\n')
	}
	if cur.Len() > 0 {
		out = append(out, strings.TrimRight(cur.String(), "\n"))
	}
	return out
}

// isLineBlock reports whether a paragraph is made of lines that stand
// alone: a code block, a list, a table or a quote.
func isLineBlock(p string) bool {
	if fenceOf(p) != "" {
		return true
	}
	lines := strings.Split(p, "\n")
	n := 0
	for _, l := range lines {
		if listLineRE().MatchString(l) || strings.HasPrefix(l, "    ") || strings.HasPrefix(l, "\t") {
			n++
		}
	}
	return n*2 > len(lines)
}

// sentences splits prose after ".", "!" or "?" (with closing quotes or
// brackets) followed by white space.
func sentences(p string) []string {
	var out []string
	start := 0
	for i := 0; i < len(p); i++ {
		c := p[i]
		if c != '.' && c != '!' && c != '?' {
			continue
		}
		j := i + 1
		for j < len(p) && strings.IndexByte(`"')]*_`, p[j]) >= 0 {
			j++
		}
		if j < len(p) && (p[j] == ' ' || p[j] == '\n' || p[j] == '\t') {
			out = append(out, p[start:j])
			start = j
			i = j
		}
	}
	if start < len(p) {
		out = append(out, p[start:])
	}
	return out
}

// hardCut cuts s into pieces of at most budget runes, at the last white
// space before the bound when there is one in its second half.
func hardCut(s string, budget int) []string {
	var out []string
	n := utf8.RuneCountInString(s) // runes left in s, kept as s shrinks
	for n > budget {
		// Byte offset of the budget-th rune.
		end := 0
		for k := 0; k < budget && end < len(s); k++ {
			_, size := utf8.DecodeRuneInString(s[end:])
			end += size
		}
		cut := end
		if sp := strings.LastIndexAny(s[:end], " \n\t"); sp > end/2 {
			cut = sp
		}
		if piece := strings.TrimSpace(s[:cut]); piece != "" {
			out = append(out, piece)
		}
		n -= utf8.RuneCountInString(s[:cut])
		rest := strings.TrimLeftFunc(s[cut:], unicode.IsSpace)
		n -= utf8.RuneCountInString(s[cut : len(s)-len(rest)])
		s = rest
	}
	if s = strings.TrimSpace(s); s != "" {
		out = append(out, s)
	}
	return out
}
