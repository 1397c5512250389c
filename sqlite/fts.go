package sqlite

import "github.com/holomem/holomem/text"

// The text functions the store depends on, in one place: the FTS index
// text, the safe MATCH expressions, and entity extraction and keys.

func indexText(s string) string { return text.IndexText(s) }
func matchAll(q string) string  { return text.MatchAll(q) }
func matchAny(q string) string  { return text.MatchAny(q) }

// queryTokens returns the distinct tokens of q, at most text.MaxMatchTokens.
func queryTokens(q string) []string {
	var out []string
	seen := map[string]bool{}
	for _, t := range text.Tokens(q) {
		if !seen[t] && len(out) < text.MaxMatchTokens {
			seen[t] = true
			out = append(out, t)
		}
	}
	return out
}
func stem(t string) string        { return text.Stem(t) }
func morphPrefix(t string) string { return text.MorphPrefix(t) }
func entityKey(n string) string   { return text.EntityKey(n) }
func extractEntities(s string, tags []string) []text.Entity {
	return text.Extract(s, tags)
}
