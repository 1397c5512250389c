package holomem

import (
	"fmt"
	"math"
	"strings"
	"unicode/utf8"
)

// Default query settings.
const (
	DefaultLimit    = 10
	MaxLimit        = 1000
	DefaultMinTrust = 0.3
	MaxQueryBytes   = 16 << 10
	// MaxWeight bounds each channel weight, so their sum stays finite
	// (1e308 three times overflows to +Inf).
	MaxWeight = 1000
	// MaxEntities bounds the entities of one probe/related/reason call and
	// MaxEntityBytes each name: the work grows with both, and a 100 KB URL of
	// repeated entities took seconds.
	MaxEntities    = 16
	MaxEntityBytes = 256
)

// ValidateEntities checks the arguments of the HRR algebra (probe,
// related, reason) the same way for every door: HTTP, MCP and the CLI.
func ValidateEntities(entities []string, limit int) error {
	if len(entities) > MaxEntities {
		return fmt.Errorf("%w: %d entities; the limit is %d", ErrInvalid, len(entities), MaxEntities)
	}
	for _, e := range entities {
		if len(e) > MaxEntityBytes {
			return fmt.Errorf("%w: entity name is %d bytes; the limit is %d", ErrInvalid, len(e), MaxEntityBytes)
		}
		if !utf8.ValidString(e) {
			return fmt.Errorf("%w: entity name is not valid UTF-8", ErrInvalid)
		}
	}
	if limit < 0 || limit > MaxLimit {
		return fmt.Errorf("%w: limit %d is outside 0..%d", ErrInvalid, limit, MaxLimit)
	}
	return nil
}

// Query asks [Memory.Recall] for facts.
type Query struct {
	// Text is the user's query; it is data, never search syntax. Full-text
	// search, Jaccard and HRR read it as given.
	Text string `json:"text"`
	// EmbedText, when set, is what the semantic channel embeds instead of
	// Text: query hygiene puts the expanded, stripped query here (issue
	// references replaced by the referenced record's text, URLs removed).
	EmbedText string `json:"embed_text,omitempty"`
	Namespace string `json:"namespace,omitempty"`
	// Limit is the number of hits; 0 means DefaultLimit.
	Limit int `json:"limit,omitempty"`
	// Offset skips the first hits of the ranking (paging): offset 10 with
	// limit 10 returns hits 11 to 20 of the ranking limit 20 returns.
	Offset   int    `json:"offset,omitempty"`
	Category string `json:"category,omitempty"`
	// MinTrust drops facts below this trust; nil means DefaultMinTrust.
	MinTrust *float64 `json:"min_trust,omitempty"`
	// IncludeSuperseded also returns facts another fact replaced.
	IncludeSuperseded bool `json:"include_superseded,omitempty"`
	// Weights overrides the channel weights; nil means DefaultWeights.
	Weights *Weights `json:"weights,omitempty"`
	// PPR adds the Personalized PageRank channel seeded by the top hits.
	PPR bool `json:"ppr,omitempty"`
	// FollowCausal adds facts reached over causal edges from the hits.
	FollowCausal bool `json:"follow_causal,omitempty"`
	// NoTouch leaves retrieval counts alone (for previews and benchmarks).
	NoTouch bool `json:"no_touch,omitempty"`
}

// Normalize fills defaults.
func (q *Query) Normalize() {
	if strings.TrimSpace(q.Namespace) == "" {
		q.Namespace = DefaultNamespace
	}
	// Only a missing limit takes the default: a negative one is an error
	// (Validate), not silently the default.
	if q.Limit == 0 {
		q.Limit = DefaultLimit
	}
	if q.MinTrust == nil {
		t := DefaultMinTrust
		q.MinTrust = &t
	}
}

// Validate rejects queries recall cannot answer.
func (q *Query) Validate() error {
	if !utf8.ValidString(q.Text) {
		return fmt.Errorf("%w: query is not valid UTF-8", ErrInvalid)
	}
	if strings.TrimSpace(strings.ReplaceAll(q.Text, "\x00", "")) == "" {
		return fmt.Errorf("%w: query is empty", ErrInvalid)
	}
	if len(q.Text) > MaxQueryBytes {
		return fmt.Errorf("%w: query is %d bytes; the limit is %d", ErrInvalid, len(q.Text), MaxQueryBytes)
	}
	if q.Limit < 0 || q.Limit > MaxLimit {
		return fmt.Errorf("%w: limit %d is outside 1..%d", ErrInvalid, q.Limit, MaxLimit)
	}
	if q.Offset < 0 || q.Offset+q.Limit > MaxLimit {
		return fmt.Errorf("%w: offset %d is outside 0..%d (offset + limit at most %d)", ErrInvalid, q.Offset, MaxLimit-q.Limit, MaxLimit)
	}
	if q.MinTrust != nil && (math.IsNaN(*q.MinTrust) || *q.MinTrust < 0 || *q.MinTrust > 1) {
		return fmt.Errorf("%w: min trust %v is outside 0..1", ErrInvalid, *q.MinTrust)
	}
	if q.Weights != nil {
		return q.Weights.Validate()
	}
	return nil
}

// NamespaceMatches counts the facts of a namespace that match a query's
// words (full text, at most [MaxElsewhereMatches]).
type NamespaceMatches struct {
	Namespace string `json:"namespace"`
	Matches   int    `json:"matches"`
}

// MaxElsewhereMatches caps [NamespaceMatches.Matches]: a hint needs an
// order of magnitude, not an exact count.
const MaxElsewhereMatches = 100

// Hit is one recalled fact with the explanation of its score:
// Score = Relevance x Trust x Decay, Relevance = weighted Scores.
type Hit struct {
	Fact      *Fact   `json:"fact"`
	Score     float64 `json:"score"`
	Relevance float64 `json:"relevance"`
	Decay     float64 `json:"decay"`
	Scores    Scores  `json:"scores"`
	// Via is set when the hit was reached over edges from another hit
	// (for example the PR that fixed a recalled issue): the path of fact ids.
	Via []int64 `json:"via,omitempty"`
	// Stale is set when the fact's anchored file changed or vanished.
	Stale string `json:"stale,omitempty"`
	// Snippet is the part of the content that matched the query: the
	// window of at most 320 characters where the query's words are
	// densest, one line, with "…" where the content was cut. Every door
	// shows it; the whole content is in Fact unless a door left it out.
	Snippet string `json:"snippet,omitempty"`
	// Matches are the byte offsets [start, end) in Snippet (UTF-8) of
	// the words that matched the query.
	Matches [][2]int `json:"matches,omitempty"`
	// Passage is the passage of a long fact the query matched best; nil
	// for a fact of one passage (about 300 tokens) or none matched.
	Passage *Passage `json:"passage,omitempty"`
	// Risks say why the fact's content reads as instructions to a model
	// (memory poisoning, text.InstructionRisks). Doors that hand content
	// to a model set it (MCP) and then show such content as quoted data.
	Risks []string `json:"risks,omitempty"`
}

// Passage is one piece of a long fact's content: its index and byte
// offsets [Start, End) in the content. Long facts are cut into passages of
// at most about 300 tokens at paragraph, line, sentence or word boundaries.
type Passage struct {
	Index int `json:"index"`
	Start int `json:"start"`
	End   int `json:"end"`
}

// Result is a recall answer: the ranked hits and which channels ran.
type Result struct {
	Hits []Hit `json:"hits"`
	// Namespace is the namespace that was searched.
	Namespace string `json:"namespace"`
	// Elsewhere lists other namespaces whose facts match the query's
	// words, when the searched one gave no hits: the fact the caller
	// expects may have been stored under another namespace.
	Elsewhere []NamespaceMatches `json:"elsewhere,omitempty"`
	// Channels lists the channels that ran, in a fixed order.
	Channels []Channel `json:"channels"`
	// Weights are the weights actually used after redistribution.
	Weights Weights `json:"weights"`
	// Notes tell the caller about degraded modes ("no embedding model: ...").
	Notes []string `json:"notes,omitempty"`
	// Omitted counts the hits a door left out to keep its answer within
	// a token budget; NextOffset is the offset that returns them.
	Omitted    int `json:"omitted,omitempty"`
	NextOffset int `json:"next_offset,omitempty"`
}
