package mcpserver

import (
	"encoding/json"
	"fmt"
	"math"
	"unicode/utf8"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/holomem/holomem"
	"github.com/holomem/holomem/text"
)

// HitView is a hit as an agent reads it: what the fact says where the
// query matched (snippet), and what it needs to act on it (id, category,
// dates, trust). Vectors, counters and channel internals stay out unless
// the call asks to explain.
type HitView struct {
	ID       int64    `json:"id"`
	Score    float64  `json:"score"`
	Category string   `json:"category"`
	Tags     []string `json:"tags,omitempty"`
	// Updated is the date of the fact's last content change.
	Updated     string  `json:"updated"`
	Trust       float64 `json:"trust"`
	ExternalKey string  `json:"external_key,omitempty"`
	Snippet     string  `json:"snippet"`
	// Chars is the length of the whole content, in characters.
	Chars   int              `json:"chars"`
	Passage *holomem.Passage `json:"passage,omitempty"`
	Content string           `json:"content,omitempty"`
	Via     []int64          `json:"via,omitempty"`
	Stale   string           `json:"stale,omitempty"`
	Risks   []string         `json:"risks,omitempty"`
	Matches [][2]int         `json:"matches,omitempty"`
	Scores  *holomem.Scores  `json:"scores,omitempty"`
	Why     *Why             `json:"why,omitempty"`
}

// Why explains a score: Score = Relevance x Trust x Decay.
type Why struct {
	Relevance float64 `json:"relevance"`
	Decay     float64 `json:"decay"`
}

// viewOpts say what a hit view carries beyond the default.
type viewOpts struct {
	full    bool // the whole content
	explain bool // per-channel scores, relevance, decay and match offsets
}

// round keeps 3 decimals: more digits cost context and say nothing.
func round(x float64) float64 { return math.Round(x*1000) / 1000 }

// hitView makes the agent's view of h. Content that reads as instructions
// to a model (memory poisoning) comes quoted as data, with its risks.
func hitView(h holomem.Hit, o viewOpts) HitView {
	f := h.Fact
	v := HitView{
		ID: f.ID, Score: round(h.Score), Category: f.Category, Tags: f.Tags,
		Updated: f.UpdatedAt.UTC().Format("2006-01-02"), Trust: round(f.Trust), ExternalKey: f.ExternalKey,
		Snippet: h.Snippet, Chars: utf8.RuneCountInString(f.Content), Passage: h.Passage,
		Via: h.Via, Stale: h.Stale,
	}
	if v.Snippet == "" {
		v.Snippet = text.MakeSnippet(f.Content, nil).Text
	}
	if o.full {
		v.Content = f.Content
	}
	if o.explain {
		v.Matches = h.Matches
		sc := h.Scores
		v.Scores = &sc
		v.Why = &Why{Relevance: round(h.Relevance), Decay: round(h.Decay)}
	}
	if risks := text.InstructionRisks(f.Content); len(risks) > 0 {
		v.Risks = risks
		v.Snippet = text.QuoteData(v.Snippet)
		v.Matches = nil // the offsets were into the unquoted text
		if o.full {
			v.Content = text.QuoteData(f.Content)
		}
	}
	return v
}

// hitViews makes the views of hs.
func hitViews(hs []holomem.Hit, o viewOpts) []HitView {
	out := make([]HitView, len(hs))
	for i, h := range hs {
		out[i] = hitView(h, o)
	}
	return out
}

// FactView is a fact as a write tool or list returns it: its labels and
// the start of its content (get returns the content itself).
type FactView struct {
	ID          int64    `json:"id"`
	Category    string   `json:"category"`
	Tags        []string `json:"tags,omitempty"`
	Source      string   `json:"source,omitempty"`
	ExternalKey string   `json:"external_key,omitempty"`
	Trust       float64  `json:"trust"`
	Updated     string   `json:"updated"`
	Snippet     string   `json:"snippet,omitempty"`
	Chars       int      `json:"chars"`
	// SupersededBy is the id of the fact that replaced this one.
	SupersededBy int64    `json:"superseded_by,omitempty"`
	Risks        []string `json:"risks,omitempty"`
}

// factView makes the short view of f.
func factView(f *holomem.Fact) *FactView {
	if f == nil {
		return nil
	}
	v := &FactView{
		ID: f.ID, Category: f.Category, Tags: f.Tags, Source: f.Source, ExternalKey: f.ExternalKey,
		Trust: round(f.Trust), Updated: f.UpdatedAt.UTC().Format("2006-01-02"),
		Snippet: text.MakeSnippet(f.Content, nil).Text, Chars: utf8.RuneCountInString(f.Content),
		SupersededBy: f.SupersededBy,
	}
	if risks := text.InstructionRisks(f.Content); len(risks) > 0 {
		v.Risks, v.Snippet = risks, text.QuoteData(v.Snippet)
	}
	return v
}

// wireTokens estimates the tokens of a tool result carrying out: the SDK
// sends out twice, as structured content and as its JSON text (for
// clients without structured content), and a budget bounds both.
func (s *Server) wireTokens(out any) int {
	b, err := json.Marshal(out)
	if err != nil {
		return math.MaxInt
	}
	res := mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: string(b)}}, StructuredContent: json.RawMessage(b)}
	w, err := json.Marshal(&res)
	if err != nil {
		return math.MaxInt
	}
	return holomem.EstimateTokens(string(w)) + s.envelope
}

// envelopeTokens estimates what the SDK adds to every tool result: its
// server info under _meta and the result type, with some slack.
func envelopeTokens(version string) int {
	b, _ := json.Marshal(map[string]any{
		"_meta":      map[string]any{"io.modelcontextprotocol/serverInfo": mcp.Implementation{Name: "holomem", Title: "holomem memory", Version: version}},
		"resultType": "complete",
	})
	return holomem.EstimateTokens(string(b)) + 16
}

// budgetOr returns the budget a call asked for, or the default, or an
// error for one out of range (at most holomem.MaxMCPBudget).
func budgetOr(b int) (int, error) {
	if b == 0 {
		return holomem.DefaultMCPBudget, nil
	}
	if b < holomem.MinBudget || b > holomem.MaxMCPBudget {
		return 0, fmt.Errorf("%w: budget %d tokens is outside %d..%d", holomem.ErrInvalid, b, holomem.MinBudget, holomem.MaxMCPBudget)
	}
	return b, nil
}
