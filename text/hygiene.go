package text

import (
	"slices"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/holomem/holomem/internal/leaf/lazyre"
)

var (
	mdImageRE = lazyre.New(`!\[[^\]\n]*\]\([^)\n]*\)`)
	mdLinkRE  = lazyre.New(`\[([^\]\n]*)\]\([^)\n]*\)`)
	htmlImgRE = lazyre.New(`(?i)<img\b[^>]*>|</img>`)
)

// StripForEmbedding returns the text of s that is worth embedding: without
// URLs, markdown images and attachments (![..](..)), <img> tags and file
// paths, with markdown links reduced to their text and white space
// collapsed to single spaces. Full-text search still gets the raw text;
// this only keeps noise out of the sentence vector.
func StripForEmbedding(s string) string {
	if !utf8.ValidString(s) {
		s = strings.ToValidUTF8(s, "\uFFFD")
	}
	s = mdImageRE().ReplaceAllString(s, " ")
	s = htmlImgRE().ReplaceAllString(s, " ")
	s = mdLinkRE().ReplaceAllString(s, "$1")
	s = urlRE().ReplaceAllStringFunc(s, func(u string) string {
		return " " + u[len(trimURL(u)):] // keep the sentence's punctuation
	})
	x := &extractor{s: s}
	var b strings.Builder
	b.Grow(len(s))
	for i := 0; i < len(s); {
		r, n := utf8.DecodeRuneInString(s[i:])
		if unicode.IsSpace(r) || unicode.IsControl(r) {
			i += n
			continue
		}
		start := i
		for i < len(s) {
			r, n = utf8.DecodeRuneInString(s[i:])
			if unicode.IsSpace(r) || unicode.IsControl(r) {
				break
			}
			i += n
		}
		cs, ce, _ := x.trimChunk(start, i)
		chunk := s[start:i]
		if cs < ce && isPath(s[cs:ce]) {
			chunk = s[start:cs] + s[ce:i]
		}
		if strings.Trim(chunk, ".,;:!?()[]{}<>\"'`") == "" {
			continue // punctuation left behind by a removed URL or path
		}
		if b.Len() > 0 {
			b.WriteByte(' ')
		}
		b.WriteString(chunk)
	}
	return b.String()
}

// IssueRefs returns the issue and pull request references in s, in order
// of first appearance without duplicates: "#123" for #123 and GH-123,
// "owner/repo#123" for owner/repo#123 and for GitHub issue and pull request
// URLs. Owner and repository are kept as written; compare them
// case-insensitively.
func IssueRefs(s string) []string {
	if !utf8.ValidString(s) {
		s = strings.ToValidUTF8(s, "\uFFFD")
	}
	x := &extractor{s: s, used: make([]bool, len(s))}
	x.urls()
	x.refs()
	slices.SortStableFunc(x.cands, func(a, b candidate) int { return a.pos - b.pos })
	var out []string
	for _, c := range x.cands {
		if c.Kind == EntityIssue && !slices.Contains(out, c.Name) {
			out = append(out, c.Name)
		}
	}
	return out
}
