package text

import "strings"

// Relation is how a new fact relates to an existing one, for write-time
// hygiene.
type Relation string

// The relations [Relate] decides.
const (
	// RelNearDuplicate: the same statement again (same content words,
	// inflection, case, word order and function words aside).
	RelNearDuplicate Relation = "near-duplicate"
	// RelContradiction: the same subject with a conflicting value: one word
	// or two swapped ("dark" vs "light", "Ansible" vs "Terraform"), a
	// different number ("2 replicas" vs "3 replicas"), or one side negated
	// ("uses X" vs "no longer uses X").
	RelContradiction Relation = "contradiction"
	// RelRefinement: one fact says what the other says and adds detail.
	RelRefinement Relation = "refinement"
	// RelUnrelated: anything else.
	RelUnrelated Relation = "unrelated"
)

// negations mark a statement as denied or ended (English and Russian;
// tokens, so "doesn't" is "doesn" + "t").
var negations = map[string]bool{
	"not": true, "no": true, "never": true, "stopped": true, "quit": true,
	"doesn": true, "don": true, "didn": true, "isn": true, "aren": true, "wasn": true, "won": true,
	"anymore": true, "nobody": true, "none": true, "removed": true, "dropped": true,
	"не": true, "нет": true, "ни": true, "никогда": true, "перестал": true,
	"перестали": true, "перестала": true, "отказались": true, "отказался": true, "убрали": true,
}

// Relate classifies the relation between a new fact and an existing one,
// deterministically, from their content words (stems, stop words out).
// cosine is the sentence embeddings' similarity, or a negative number
// without a model; when present it separates a restatement in other words
// (near-duplicate, cosine >= 0.95) from a swap of values, and facts that
// share words by chance (unrelated, cosine < 0.3).
func Relate(newer, older string, cosine float64) Relation {
	return NewRelater(newer).Relate(older, cosine)
}

// Relater is [Relate] with the newer fact's content words read once:
// write-time hygiene compares one new fact with tens of candidates.
type Relater struct {
	terms   WordSet
	negated bool
	numbers WordSet
}

// NewRelater reads newer's content words for [Relater.Relate].
func NewRelater(newer string) *Relater {
	return NewRelaterTokens(Tokens(newer))
}

// NewRelaterTokens is [NewRelater] given the fact's [Tokens]. A Relater
// also stands for an older fact in [Relater.RelateTo], so a caller that
// compares many new facts with the same candidates reads each candidate's
// words once.
func NewRelaterTokens(tokens []string) *Relater {
	a, an, anum := relTerms(tokens)
	return &Relater{terms: a, negated: an, numbers: anum}
}

// Relate is [Relate](newer, older, cosine).
func (r *Relater) Relate(older string, cosine float64) Relation {
	return r.RelateTokens(Tokens(older), cosine)
}

// RelateTokens is [Relater.Relate] given older's [Tokens] (the caller
// may have them already).
func (r *Relater) RelateTokens(older []string, cosine float64) Relation {
	return r.RelateTo(NewRelaterTokens(older), cosine)
}

// RelateTo is [Relater.Relate] given older's words read by
// [NewRelaterTokens]. It does not modify either Relater.
func (r *Relater) RelateTo(older *Relater, cosine float64) Relation {
	a, an, anum := r.terms, r.negated, r.numbers
	b, bn, bnum := older.terms, older.negated, older.numbers
	shared := a.Shared(b)
	onlyA, onlyB := a.Len()-shared, b.Len()-shared
	union := shared + onlyA + onlyB
	if union == 0 || shared == 0 {
		return RelUnrelated
	}
	small := min(a.Len(), b.Len())
	containment := float64(shared) / float64(max(1, small))
	jaccard := float64(shared) / float64(union)
	if cosine >= 0 && cosine < 0.3 {
		return RelUnrelated
	}
	if containment < 0.5 || shared < 2 {
		return RelUnrelated
	}
	// A changed number: each side has a number the other lacks (a
	// refinement keeps the old numbers and may add some).
	numbersDiffer := hasOutside(anum, bnum) && hasOutside(bnum, anum)
	switch {
	case an != bn && jaccard >= 0.4:
		return RelContradiction
	case numbersDiffer && jaccard >= 0.4:
		return RelContradiction
	case onlyA == 0 && onlyB == 0:
		return RelNearDuplicate
	case cosine >= 0.95:
		return RelNearDuplicate
	case onlyB == 0 || onlyA == 0:
		// One says everything the other says, and more.
		return RelRefinement
	case onlyA <= 2 && onlyB <= 2 && jaccard >= 0.4:
		return RelContradiction
	case jaccard >= 0.75:
		return RelNearDuplicate
	}
	return RelUnrelated
}

// relTerms returns the stems of s's content words (numbers included),
// whether s is negated, and its numbers.
func relTerms(tokens []string) (terms WordSet, negated bool, numbers WordSet) {
	var stems, nums []string
	for _, t := range tokens {
		if negations[t] {
			negated = true
			continue
		}
		if IsStopWord(t) {
			continue
		}
		if isNumber(t) {
			nums = append(nums, t)
		}
		stems = append(stems, Stem(t))
	}
	return NewWordSet(stems), negated, NewWordSet(nums)
}

func isNumber(t string) bool {
	return t != "" && strings.Trim(t, "0123456789") == ""
}

// hasOutside reports whether a has an element b lacks.
func hasOutside(a, b WordSet) bool {
	return a.Shared(b) < a.Len()
}

// HardConflict reports whether newer and older conflict by negation or by
// a changed number, the contradictions that no word overlap can excuse
// (a swapped word in a long, otherwise identical sentence may be a
// restatement: "nginx.yml" vs "nginx.yaml").
func HardConflict(newer, older string) bool {
	_, an, anum := relTerms(Tokens(newer))
	_, bn, bnum := relTerms(Tokens(older))
	return an != bn || (hasOutside(anum, bnum) && hasOutside(bnum, anum))
}
