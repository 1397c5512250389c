package holomem

import (
	"fmt"
	"math"
	"strings"
	"time"
	"unicode"
	"unicode/utf8"
)

// Limits on a fact's fields. They keep one fact a fact: a whole document
// should be split (the markdown importer does that per section).
const (
	// MaxContentBytes is the largest content accepted, in bytes of UTF-8.
	MaxContentBytes = 256 << 10
	// MaxTags is the largest number of tags on one fact.
	MaxTags = 64
	// MaxLabelBytes bounds category, source, namespace, tags and external keys.
	MaxLabelBytes = 512
)

// Default values applied by [Fact.Normalize].
const (
	DefaultNamespace = "default"
	DefaultCategory  = "general"
	DefaultTrust     = 0.5
)

// Fact is one remembered piece of text and what holomem knows about it.
//
// UpdatedAt is the time of the last content change: temporal decay counts
// from it, so feedback and metadata edits deliberately do not move it.
type Fact struct {
	ID          int64    `json:"id"`
	Namespace   string   `json:"namespace"`
	Content     string   `json:"content"`
	Category    string   `json:"category"`
	Tags        []string `json:"tags,omitempty"`
	Source      string   `json:"source,omitempty"`
	ExternalKey string   `json:"external_key,omitempty"`

	Trust          float64 `json:"trust"`
	RetrievalCount int64   `json:"retrieval_count"`
	HelpfulCount   int64   `json:"helpful_count"`
	UnhelpfulCount int64   `json:"unhelpful_count"`

	CreatedAt time.Time `json:"created_at"`
	UpdatedAt time.Time `json:"updated_at"`

	// Anchor ties the fact to a file; recall marks it stale when the file changes.
	Anchor *Anchor `json:"anchor,omitempty"`

	// SupersededBy is the id of the fact that replaced this one, or 0.
	SupersededBy int64 `json:"superseded_by,omitempty"`

	// Entities are derived from Content by the store (see text.Entities).
	Entities []string `json:"entities,omitempty"`

	// ModelID names the model that made Embedding ("" when there is none).
	ModelID   string    `json:"model_id,omitempty"`
	Embedding []float32 `json:"embedding,omitempty"`

	// HRR is the compact holographic vector (package hrr's encoding). It is
	// derived data: written by the memory service, never exported.
	HRR []byte `json:"-"`
}

// Anchor is a file a fact describes: Path relative to the project root and
// the SHA-256 (hex) of the file's content when the fact was written.
type Anchor struct {
	Path string `json:"path"`
	Hash string `json:"hash"`
}

// validate checks an anchor's form (a nil anchor is valid): see
// [ValidateAnchorPath]; Hash is empty or 64 hex digits.
func (a *Anchor) validate() error {
	if a == nil {
		return nil
	}
	if err := ValidateAnchorPath(a.Path); err != nil {
		return err
	}
	if a.Hash != "" {
		if len(a.Hash) != 64 || strings.Trim(strings.ToLower(a.Hash), "0123456789abcdef") != "" {
			return fmt.Errorf("%w: anchor hash must be 64 hex digits (SHA-256)", ErrInvalid)
		}
	}
	return nil
}

// ValidateAnchorPath checks that p can name a file under a project root:
// non-empty, relative, slash-separated, with no "." or ".." element, no
// backslash and no NUL. Anchors arrive from agents over MCP and HTTP, and
// recall reads the files they name, so a path that could leave the root
// is refused when the fact is written.
func ValidateAnchorPath(p string) error {
	switch {
	case strings.TrimSpace(p) == "":
		return fmt.Errorf("%w: anchor has an empty path", ErrInvalid)
	case len(p) > 4096:
		return fmt.Errorf("%w: anchor path is longer than 4096 bytes", ErrInvalid)
	case !utf8.ValidString(p) || strings.ContainsAny(p, "\x00\\"):
		return fmt.Errorf("%w: anchor path %q has a NUL, a backslash or invalid UTF-8", ErrInvalid, p)
	case strings.HasPrefix(p, "/") || (len(p) > 1 && p[1] == ':'):
		return fmt.Errorf("%w: anchor path %q must be relative to the project root", ErrInvalid, p)
	}
	for _, el := range strings.Split(p, "/") {
		if el == "" || el == "." || el == ".." {
			return fmt.Errorf("%w: anchor path %q must be a clean path inside the project root (no '.', '..' or empty elements)", ErrInvalid, p)
		}
	}
	return nil
}

// Normalize fills defaults (namespace, category, trust) and trims labels.
// It does not touch Content beyond what Validate checks.
func (f *Fact) Normalize() {
	f.Namespace = strings.TrimSpace(f.Namespace)
	if f.Namespace == "" {
		f.Namespace = DefaultNamespace
	}
	f.Category = strings.TrimSpace(f.Category)
	if f.Category == "" {
		f.Category = DefaultCategory
	}
	f.Source = strings.TrimSpace(f.Source)
	f.ExternalKey = strings.TrimSpace(f.ExternalKey)
	f.Tags = NormalizeTags(f.Tags)
	if f.Trust == 0 && f.ID == 0 {
		f.Trust = DefaultTrust
	}
}

// NormalizeTags trims, lower-cases, joins inner words with '-' and
// de-duplicates tags, keeping their order.
func NormalizeTags(tags []string) []string {
	var out []string
	seen := make(map[string]bool, len(tags))
	for _, t := range tags {
		t = strings.ToLower(strings.TrimSpace(strings.TrimPrefix(strings.TrimSpace(t), "#")))
		// Tags are stored space-separated, so inner whitespace becomes '-'.
		t = strings.Join(strings.Fields(t), "-")
		if t == "" || seen[t] {
			continue
		}
		seen[t] = true
		out = append(out, t)
	}
	return out
}

// Validate reports whether the fact can be stored. The error wraps
// [ErrInvalid] and says what to change.
func (f *Fact) Validate() error {
	if err := ValidateContent(f.Content); err != nil {
		return err
	}
	labels := []struct{ name, v string }{
		{"namespace", f.Namespace}, {"source", f.Source}, {"external key", f.ExternalKey},
	}
	for _, l := range labels {
		if err := validateLabel(l.name, l.v); err != nil {
			return err
		}
	}
	if err := validateName("category", f.Category); err != nil {
		return err
	}
	if len(f.Tags) > MaxTags {
		return fmt.Errorf("%w: %d tags; at most %d are allowed", ErrInvalid, len(f.Tags), MaxTags)
	}
	for _, t := range f.Tags {
		if err := validateName("tag", t); err != nil {
			return err
		}
	}
	if math.IsNaN(f.Trust) || f.Trust < 0 || f.Trust > 1 {
		return fmt.Errorf("%w: trust %v is outside 0..1", ErrInvalid, f.Trust)
	}
	if err := f.Anchor.validate(); err != nil {
		return err
	}
	if len(f.Embedding) > 0 && f.ModelID == "" {
		return fmt.Errorf("%w: an embedding needs the id of the model that made it", ErrInvalid)
	}
	return nil
}

// ValidateContent checks fact content: non-blank, valid UTF-8, no NUL bytes,
// at most [MaxContentBytes].
func ValidateContent(s string) error {
	if len(s) > MaxContentBytes {
		return fmt.Errorf("%w: content is %d bytes; the limit is %d: split it into several facts", ErrInvalid, len(s), MaxContentBytes)
	}
	if !utf8.ValidString(s) {
		return fmt.Errorf("%w: content is not valid UTF-8 (at byte %d): re-encode it as UTF-8", ErrInvalid, invalidUTF8At(s))
	}
	if i := strings.IndexByte(s, 0); i >= 0 {
		return fmt.Errorf("%w: content contains a NUL byte at offset %d", ErrInvalid, i)
	}
	if strings.TrimSpace(s) == "" {
		return fmt.Errorf("%w: content is empty", ErrInvalid)
	}
	return nil
}

// validateLabel checks a label (namespace, source, external key, origin):
// bounded, valid UTF-8, and no control, format or line-separator character.
// Labels are printed unquoted on every door (the prompt hook's lines, MCP
// results, the web UI), so a newline, a bidi override or a zero-width
// character in one could start a line of its own in an agent's prompt or
// reorder what a person reads.
func validateLabel(name, v string) error {
	if len(v) > MaxLabelBytes {
		return fmt.Errorf("%w: %s is %d bytes; the limit is %d", ErrInvalid, name, len(v), MaxLabelBytes)
	}
	if !utf8.ValidString(v) {
		return fmt.Errorf("%w: %s is not valid UTF-8", ErrInvalid, name)
	}
	if strings.ContainsRune(v, 0) {
		return fmt.Errorf("%w: %s contains a NUL byte", ErrInvalid, name)
	}
	for i, r := range v {
		if unicode.IsControl(r) || unicode.In(r, unicode.Cf, unicode.Zl, unicode.Zp) {
			return fmt.Errorf("%w: %s %q has the control or invisible character %U at byte %d: labels are one line of visible text", ErrInvalid, name, v, r, i)
		}
	}
	return nil
}

// nameMarkup are the characters a category or tag may not hold: they are
// printed bare inside the hook's "[#id category date]" brackets and in
// markup, so none of these may open or close anything there.
const nameMarkup = "<>[]{}\"`\\"

// CleanName makes s a valid category or tag for importers, which keep a
// record rather than refuse it for its label: control, invisible and
// line-separator characters are dropped, each of [nameMarkup] becomes '-',
// and the result is trimmed.
func CleanName(s string) string {
	s = strings.Map(func(r rune) rune {
		switch {
		case r == utf8.RuneError, unicode.IsControl(r), unicode.In(r, unicode.Cf, unicode.Zl, unicode.Zp):
			return -1
		case strings.ContainsRune(nameMarkup, r):
			return '-'
		}
		return r
	}, s)
	return strings.TrimSpace(s)
}

// validateName checks a category or tag: a label ([validateLabel]) that
// also holds none of [nameMarkup].
func validateName(name, v string) error {
	if err := validateLabel(name, v); err != nil {
		return err
	}
	if i := strings.IndexAny(v, nameMarkup); i >= 0 {
		return fmt.Errorf("%w: %s %q has %q at byte %d: a %s holds letters, digits, spaces and punctuation other than %s", ErrInvalid, name, v, v[i], i, name, nameMarkup)
	}
	return nil
}

func invalidUTF8At(s string) int {
	for i := 0; i < len(s); {
		r, n := utf8.DecodeRuneInString(s[i:])
		if r == utf8.RuneError && n == 1 {
			return i
		}
		i += n
	}
	return -1
}

// FactFilter selects facts for [Store.FindFacts]. Nil and zero fields do not filter.
type FactFilter struct {
	Namespace *string
	Category  *string
	Tag       *string
	Source    *string
	IDs       []int64
	// AfterID returns facts with a larger id only (keyset paging).
	AfterID int64
	// IncludeSuperseded also returns facts that another fact superseded.
	IncludeSuperseded bool
	// WithoutEmbeddingFor returns only facts with no vector of this model id.
	WithoutEmbeddingFor *string
	// WithEmbedding loads Embedding and ModelID (they are large; off by default).
	WithEmbedding bool
	// WithHRR loads the HRR vector.
	WithHRR bool
	// Lean lets a store skip what a hot path does not need: the facts'
	// Entities and the total count (FindFacts then returns the number of
	// facts it returned as the total). Recall
	// scores dozens of candidates per query and reads entities only for
	// the few it returns ([EntityStore.EntitiesOf]).
	Lean bool
	// Offset and Limit page the result; Limit 0 means no limit.
	Offset, Limit int
}

// FactUpdate changes a fact. Nil fields are left alone. Changing Content
// re-derives entities and the full-text index and restarts decay.
type FactUpdate struct {
	Content  *string
	Category *string
	Tags     *[]string
	Source   *string
	Trust    *float64
	Anchor   *Anchor
	// HRR replaces the holographic vector (the memory service sets it with Content).
	HRR []byte
}

// Validate checks the update's fields with the same rules as [Fact.Validate].
func (u FactUpdate) Validate() error {
	if u.Content != nil {
		if err := ValidateContent(*u.Content); err != nil {
			return err
		}
	}
	if u.Trust != nil && (math.IsNaN(*u.Trust) || *u.Trust < 0 || *u.Trust > 1) {
		return fmt.Errorf("%w: trust %v is outside 0..1", ErrInvalid, *u.Trust)
	}
	// An anchor with an empty path removes the anchor; any other must be valid.
	if u.Anchor != nil && strings.TrimSpace(u.Anchor.Path) != "" {
		if err := u.Anchor.validate(); err != nil {
			return err
		}
	}
	if u.Category != nil {
		if err := validateName("category", *u.Category); err != nil {
			return err
		}
	}
	if u.Source != nil {
		if err := validateLabel("source", *u.Source); err != nil {
			return err
		}
	}
	if u.Tags != nil {
		if len(*u.Tags) > MaxTags {
			return fmt.Errorf("%w: %d tags; at most %d are allowed", ErrInvalid, len(*u.Tags), MaxTags)
		}
		for _, t := range *u.Tags {
			if err := validateName("tag", t); err != nil {
				return err
			}
		}
	}
	return nil
}

// Feedback adjustments to trust, clamped to 0..1.
const (
	HelpfulDelta   = 0.05
	UnhelpfulDelta = -0.10
)

// ApplyFeedback returns trust moved by one helpful or unhelpful vote, clamped to 0..1.
func ApplyFeedback(trust float64, helpful bool) float64 {
	if helpful {
		trust += HelpfulDelta
	} else {
		trust += UnhelpfulDelta
	}
	return math.Round(min(1, max(0, trust))*1e9) / 1e9
}
