package holomem

import (
	"fmt"
	"math"
	"strings"
	"unicode/utf8"
)

// Channel names one independent way of scoring a candidate.
type Channel string

// The recall channels. Each scores a candidate 0..1.
const (
	ChannelFTS      Channel = "fts"      // SQLite FTS5 BM25, normalised
	ChannelJaccard  Channel = "jaccard"  // token-set overlap
	ChannelHRR      Channel = "hrr"      // holographic similarity
	ChannelSemantic Channel = "semantic" // cosine of sentence embeddings
	ChannelPPR      Channel = "ppr"      // query-seeded Personalized PageRank over edges
	ChannelTime     Channel = "time"     // the fact's event time within the period the query names
)

// Weights combine channel scores into relevance. They need not sum to 1;
// the searcher normalises them over the channels that ran, and reports the
// normalised weights it used (see [Weights.Normalized]).
type Weights struct {
	FTS      float64 `json:"fts"`
	Jaccard  float64 `json:"jaccard"`
	HRR      float64 `json:"hrr"`
	Semantic float64 `json:"semantic"`
	PPR      float64 `json:"ppr,omitempty"`
	// Time weighs the time channel, which runs only when the query names
	// a period; 0 means its default.
	Time float64 `json:"time,omitempty"`
}

// DefaultWeights are chosen by measurement (`holomem eval --ablate` on
// the LoCoMo development split, docs/evaluation.md): full text carries
// recall, HRR re-ranks its candidates (+1-2% recall@10), and Jaccard, which
// lowered recall in every mix measured, only explains (weight 0). The
// semantic share is the reference design's 0.3 (docs/design.md §3.4).
func DefaultWeights() Weights {
	return Weights{FTS: 0.55, Jaccard: 0, HRR: 0.15, Semantic: 0.3}
}

// Redistribute returns the weights to use when some channels cannot run:
// the missing channels' share goes to the remaining ones in proportion
// (without a model the defaults become fts 0.79, hrr 0.21).
func (w Weights) Redistribute(semantic, hrr bool) Weights {
	out := w
	if !semantic {
		out.Semantic = 0
	}
	if !hrr {
		out.HRR = 0
	}
	kept := out.FTS + out.Jaccard + out.HRR + out.Semantic
	total := w.FTS + w.Jaccard + w.HRR + w.Semantic
	if kept > 0 && kept < total {
		f := total / kept
		out.FTS, out.Jaccard, out.HRR, out.Semantic = out.FTS*f, out.Jaccard*f, out.HRR*f, out.Semantic*f
	}
	return out
}

// Normalized returns the weights scaled to sum to 1, which is how recall
// combines them: relevance is then exactly the weighted sum of the channel
// scores, with no divisor hidden from the weights it reports. An all-zero
// set is returned unchanged.
func (w Weights) Normalized() Weights {
	total := w.FTS + w.Jaccard + w.HRR + w.Semantic + w.PPR + w.Time
	if total <= 0 || total == 1 {
		return w
	}
	return Weights{FTS: w.FTS / total, Jaccard: w.Jaccard / total, HRR: w.HRR / total, Semantic: w.Semantic / total, PPR: w.PPR / total, Time: w.Time / total}
}

// Validate rejects negative or non-finite weights and an all-zero set.
func (w Weights) Validate() error {
	sum := 0.0
	for _, v := range []float64{w.FTS, w.Jaccard, w.HRR, w.Semantic, w.PPR, w.Time} {
		if math.IsNaN(v) || math.IsInf(v, 0) || v < 0 || v > MaxWeight {
			return fmt.Errorf("%w: weight %v must be a number from 0 to %d", ErrInvalid, v, MaxWeight)
		}
		sum += v
	}
	if sum == 0 {
		return fmt.Errorf("%w: all channel weights are zero", ErrInvalid)
	}
	return nil
}

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

// Scores are one hit's per-channel scores, each 0..1 (0 when the channel did not score it).
type Scores struct {
	FTS      float64 `json:"fts"`
	Jaccard  float64 `json:"jaccard"`
	HRR      float64 `json:"hrr"`
	Semantic float64 `json:"semantic"`
	PPR      float64 `json:"ppr,omitempty"`
	Time     float64 `json:"time,omitempty"`
}

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
