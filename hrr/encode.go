package hrr

import (
	"math"
	"slices"
	"strings"
)

// EncodeFact returns a fact's holographic vector: the bundle of
// Bind(Atom(t), ROLE_CONTENT) for each distinct content token t and
// Bind(Atom(e), ROLE_ENTITY) for each distinct entity e.
//
// Tokens are used as given (the caller tokenizes and normalises); empty
// tokens are skipped. Entity keys are lower-cased, so ProbeKey("Nginx") finds
// a fact encoded with "nginx". Order and repetition do not matter: terms are
// deduplicated and sorted before summing, so the same sets always give the
// same bits.
//
// Entity terms are weighted up by [EntityWeight] so that the entities
// together carry at least half of the vector's power however long the
// content is. Without that, a 30-token fact would hold its entity at the
// level of one term in 31 and a probe for it would sink toward the noise;
// with it, each of n entities keeps a 1/(2n) share and probe separates
// members from non-members at any content length (see "# Capacity").
//
// A fact with no tokens and no entities encodes as the all-zero vector.
func EncodeFact(tokens, entities []string) Vector {
	return encode(tokens, entities)
}

// EncodeQuery returns the vector a recall query is compared with, for the
// hrr channel: the same terms and weights as [EncodeFact], so a query that
// names exactly a fact's tokens and entities scores 1 against it and the
// score falls as the term sets diverge. Use [QueryKey] to score compact
// vectors with it and [Relevance] to map the score to 0..1.
func EncodeQuery(tokens, entities []string) Vector {
	return encode(tokens, entities)
}

// QueryKey returns the scan key of [EncodeQuery].
func QueryKey(tokens, entities []string) *Key {
	return NewKey(EncodeQuery(tokens, entities))
}

// EntityWeight is the weight [EncodeFact] gives each entity term in a fact
// with the given numbers of distinct content tokens and entities (content
// tokens weigh 1): sqrt(max(contentTokens, entities)/entities), so the
// entities' total power equals the content's when content dominates and
// every term weighs 1 otherwise. It returns 0 when entities is 0.
func EntityWeight(contentTokens, entities int) float64 {
	if entities <= 0 {
		return 0
	}
	return math.Sqrt(float64(max(contentTokens, entities)) / float64(entities))
}

// distinct returns the sorted distinct non-empty strings, lower-cased if asked.
func distinct(in []string, lower bool) []string {
	out := make([]string, 0, len(in))
	for _, s := range in {
		if lower {
			s = strings.ToLower(s)
		}
		if s != "" {
			out = append(out, s)
		}
	}
	slices.Sort(out)
	return slices.Compact(out)
}

func encode(tokens, entities []string) Vector {
	content := distinct(tokens, false)
	ents := distinct(entities, true)
	acc := newAccumulator()
	as := make([]*phase16, 0, max(len(content), len(ents)))
	for _, t := range content {
		as = append(as, atoms.get(t))
	}
	acc.addBoundAll(as, roleContent, 1)
	as = as[:0]
	for _, e := range ents {
		as = append(as, atoms.get(e))
	}
	acc.addBoundAll(as, roleEntity, EntityWeight(len(content), len(ents)))
	return acc.vector()
}
