package importer

import (
	"fmt"
	"sort"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/holomem/holomem"
)

// Record is one imported item: a fact to store and links to store once
// every fact of the import is in. A Record with a nil Fact carries links
// only (the edge lines of a JSONL export).
type Record struct {
	// Key names the fact within this import so links can point at it: the
	// fact's external key (GitHub, Markdown, git) or "id:<old id>" (JSONL).
	// Only Fact.ExternalKey is stored with the fact.
	Key string
	// Doc names the document a chunk belongs to ([Markdown]): [Run] updates
	// the stored chunks of a re-imported document whose content changed and
	// forgets those the document no longer has.
	Doc string
	// OldID is the fact's id in the store that exported it (JSONL only).
	OldID int64
	// Fact is the fact to create, ready for [holomem.Store.CreateFact]
	// (its ID is zero), or nil for a links-only record.
	Fact *holomem.Fact
	// Links are edges to create after the facts.
	Links []Link
}

// Link is an edge between two facts named by keys: a Record's Key or an
// external key already in the store (a commit's link to an issue imported
// earlier from GitHub).
type Link struct {
	FromKey string
	ToKey   string
	Kind    holomem.EdgeKind
	Weight  float64
	// Origin is who made the edge; importers set holomem.OriginImport, JSONL
	// keeps the exported origin.
	Origin string
	// CreatedAt is the exported edge's time (JSONL); zero means now.
	CreatedAt time.Time
	// Reason names the patterns that found the link, comma-separated
	// (see the Reason constants), so callers can count edges per pattern.
	Reason string
}

// Reasons a link was made. [Summary.LinksByReason] counts them.
const (
	// ReasonClosingRefs: the PR's closingIssuesReferences (GitHub's own link).
	ReasonClosingRefs = "closing_refs"
	// ReasonKeyword: "Closes/Fixes/Resolves #N" (any verb form) in a PR body or commit message.
	ReasonKeyword = "keyword"
	// ReasonTitle: a #N reference in a PR title, e.g. "fix(module #4409): ...".
	ReasonTitle = "title"
	// ReasonBranch: an issue number in the PR's branch name, e.g. "fix/4409-x".
	ReasonBranch = "branch"
	// ReasonRef: a #N reference in a commit message outside a keyword.
	ReasonRef = "ref"
	// ReasonGHRef: a GH-N reference in a commit message.
	ReasonGHRef = "gh_ref"
	// ReasonSameFile: consecutive commits touching the same file (temporal).
	ReasonSameFile = "same_file"
	// ReasonExport: an edge line of a JSONL export.
	ReasonExport = "export"
	// ReasonSupersededBy: a JSONL fact's superseded_by field with no edge line.
	ReasonSupersededBy = "superseded_by"
)

// Skip is an input item the importer left out, and why. Line is the
// 1-based line of the input (JSONL, GitHub), the commit's 1-based position
// in the log (Git), or 0 with Path set (a whole Markdown file).
type Skip struct {
	Path   string `json:"path,omitempty"`
	Line   int    `json:"line,omitempty"`
	Reason string `json:"reason"`
}

// String returns "path:line: reason" with the parts that are set.
func (s Skip) String() string {
	var b strings.Builder
	if s.Path != "" {
		b.WriteString(s.Path)
		b.WriteString(":")
	}
	if s.Line > 0 {
		fmt.Fprintf(&b, "%d:", s.Line)
	}
	if b.Len() > 0 {
		b.WriteString(" ")
	}
	b.WriteString(s.Reason)
	return b.String()
}

// MaxSkips is the number of skips a [Summary] keeps; Skipped counts them all.
const MaxSkips = 1000

// Summary reports what an import produced. The zero value is ready to use.
type Summary struct {
	// Records is the number of facts handed to the callback.
	Records int `json:"records"`
	// Links is the number of links handed to the callback.
	Links int `json:"links"`
	// LinksByKind counts links per edge kind.
	LinksByKind map[holomem.EdgeKind]int `json:"links_by_kind,omitempty"`
	// LinksByReason counts links per pattern; a link found by two patterns
	// counts for both.
	LinksByReason map[string]int `json:"links_by_reason,omitempty"`
	// Skipped is the number of items left out; Skips holds the first MaxSkips.
	Skipped int    `json:"skipped"`
	Skips   []Skip `json:"skips,omitempty"`
	// Notes explain results a user would not expect, such as links that
	// cannot resolve and what to do about it.
	Notes []string `json:"notes,omitempty"`
}

func (s *Summary) note(format string, args ...any) {
	s.Notes = append(s.Notes, fmt.Sprintf(format, args...))
}

func (s *Summary) skip(path string, line int, format string, args ...any) {
	s.Skipped++
	if len(s.Skips) < MaxSkips {
		s.Skips = append(s.Skips, Skip{Path: path, Line: line, Reason: fmt.Sprintf(format, args...)})
	}
}

// emit counts r and hands it to fn.
func (s *Summary) emit(fn func(Record) error, r Record) error {
	if r.Fact != nil {
		s.Records++
	}
	for _, l := range r.Links {
		s.Links++
		if s.LinksByKind == nil {
			s.LinksByKind = map[holomem.EdgeKind]int{}
			s.LinksByReason = map[string]int{}
		}
		s.LinksByKind[l.Kind]++
		for _, why := range strings.Split(l.Reason, ",") {
			s.LinksByReason[why]++
		}
	}
	if err := fn(r); err != nil {
		if r.Key != "" {
			return fmt.Errorf("record %s: %w", r.Key, err)
		}
		return err
	}
	return nil
}

// ReasonCounts returns LinksByReason as "reason=count" pairs sorted by reason.
func (s *Summary) ReasonCounts() []string {
	var out []string
	for k, v := range s.LinksByReason {
		out = append(out, fmt.Sprintf("%s=%d", k, v))
	}
	sort.Strings(out)
	return out
}

// linkSet collects a record's links, merging the reasons of links with the
// same ends and kind, in first-seen order.
type linkSet struct {
	links []Link
	at    map[[3]string]int
}

func (ls *linkSet) add(from, to string, kind holomem.EdgeKind, reason string) {
	if from == "" || to == "" || from == to {
		return
	}
	k := [3]string{from, to, string(kind)}
	if i, ok := ls.at[k]; ok {
		l := &ls.links[i]
		if !strings.Contains(","+l.Reason+",", ","+reason+",") {
			l.Reason += "," + reason
		}
		return
	}
	if ls.at == nil {
		ls.at = map[[3]string]int{}
	}
	ls.at[k] = len(ls.links)
	ls.links = append(ls.links, Link{FromKey: from, ToKey: to, Kind: kind, Weight: 1, Origin: holomem.OriginImport, Reason: reason})
}

// cleanText makes s storable: valid UTF-8, no NUL bytes, CRLF as LF,
// trimmed, and at most max bytes (cut at a rune boundary, with an ellipsis).
func cleanText(s string, max int) string {
	s = strings.ToValidUTF8(s, "\uFFFD")
	s = strings.ReplaceAll(s, "\x00", "")
	s = strings.ReplaceAll(s, "\r\n", "\n")
	s = strings.TrimSpace(s)
	if max > 0 && len(s) > max {
		cut := max - len("…")
		for cut > 0 && !utf8.RuneStart(s[cut]) {
			cut--
		}
		s = strings.TrimSpace(s[:cut]) + "…"
	}
	return s
}

// cleanLabel makes a tag or category storable, or returns "" if it cannot be.
func cleanLabel(s string) string {
	s = holomem.CleanName(strings.ToValidUTF8(s, ""))
	if len(s) > holomem.MaxLabelBytes {
		return ""
	}
	return s
}

// cleanTags normalises tags and keeps at most holomem.MaxTags storable ones.
func cleanTags(tags []string) []string {
	var out []string
	for _, t := range holomem.NormalizeTags(tags) {
		if t = cleanLabel(t); t != "" && len(out) < holomem.MaxTags {
			out = append(out, t)
		}
	}
	return out
}
