package text

import (
	"slices"
	"strings"
	"unicode"
	"unicode/utf8"
)

// Relation is how a new fact relates to an existing one, for write-time
// hygiene.
type Relation string

// The relations [Relate] decides.
const (
	// RelNearDuplicate: the same statement again (same content words,
	// inflection, case, word order, function words and generic verbs
	// aside: "CI runs on X" and "Our CI uses X").
	RelNearDuplicate Relation = "near-duplicate"
	// RelContradiction: the same subject with a conflicting value: one word
	// or two swapped ("Ansible" vs "Terraform"), opposite words ("dark" vs
	// "light", "must" vs "may"), a different number in any form ("2am" vs
	// "4am", "v1.2" vs "v1.3", "db-2" vs "db-3", a weekday), one side
	// negated or ended ("uses X" vs "no longer uses X", "stopped using
	// X"), a change ("moved to Y", "now Y") or another role or team for
	// the same person.
	RelContradiction Relation = "contradiction"
	// RelRefinement: one fact says what the other says and adds detail.
	RelRefinement Relation = "refinement"
	// RelUnrelated: anything else.
	RelUnrelated Relation = "unrelated"
)

// Relate classifies the relation between a new fact and an existing one,
// deterministically, from their content words (stems, stop words and
// generic verbs out, synonyms folded; see relation_words.go). The
// contradiction checks run first, so no similarity can hide one. cosine is
// the sentence embeddings' similarity, or a negative number without a
// model; when present it joins the decision: facts that share words by
// chance (cosine < 0.3) are unrelated, and a restatement in other words
// (cosine >= 0.9, or >= 0.85 with few shared words) is a near-duplicate
// when no contradiction was found.
func Relate(newer, older string, cosine float64) Relation {
	return NewRelater(newer).Relate(older, cosine)
}

// Relater is [Relate] with the newer fact's content words read once:
// write-time hygiene compares one new fact with tens of candidates.
type Relater struct {
	words  []relWord // distinct by key, sorted by key
	neg    bool      // negated or ended anywhere ("not", "stopped", "перестали")
	change bool      // says something changed ("now", "moved", "теперь")
	poles  []int     // antonym group*2 + pole, sorted, distinct
	values []string  // numbers and calendar values, sorted, distinct
	last   string    // the key of the last strong word: "is X" puts the value last
}

// relWord is a content word: its key (stem, or its synonym group's key)
// and what kind of word it is.
type relWord struct {
	key  string
	weak bool // a generic verb or adverb: differs in restatements
	role bool // a role or team word ("engineer", "team", "разработчик")
	name bool // a name or value: a rare or capitalised word, one with digits
	// denied: every use of the word is in a negation's scope ("not in
	// the repo", "stopped using Ansible", "без сахара").
	denied bool
}

// A negation denies the next strong word, or two after a verb of stopping
// (and the generic ones among them: "no longer use Jenkins"), or the
// negScope strong words before it when none follows ("Jenkins? not any
// more", "сквош не используем").
const negScope = 2

// NewRelater reads newer's content words for [Relater.Relate].
func NewRelater(newer string) *Relater {
	return NewRelaterText(newer, Tokens(newer))
}

// NewRelaterText is [NewRelater] given the fact's [Tokens]: the text adds
// which words are capitalised inside a sentence (names: "Kazan", "Казани").
func NewRelaterText(content string, tokens []string) *Relater {
	return newRelater(tokens, capitalised(content))
}

// NewRelaterTokens is [NewRelater] given the fact's [Tokens]. A Relater
// also stands for an older fact in [Relater.RelateTo], so a caller that
// compares many new facts with the same candidates reads each candidate's
// words once.
func NewRelaterTokens(tokens []string) *Relater {
	return newRelater(tokens, nil)
}

func newRelater(tokens []string, caps map[string]bool) *Relater {
	lx := relLexicon()
	cyr := 0
	for _, t := range tokens {
		if scriptOf(t) == scriptCyrillic {
			cyr++
		}
	}
	russian := 2*cyr > len(tokens)
	r := &Relater{}
	addValue := func(v string) {
		if !slices.Contains(r.values, v) {
			r.values = append(r.values, v)
		}
	}
	var items []relWord // content words in order, repeats kept
	var marks [][2]int  // where negations stand among items, and their scope
	addWord := func(w relWord) { items = append(items, w) }
	deny := func(n int) {
		r.neg = true
		marks = append(marks, [2]int{len(items), n})
	}
	if slices.ContainsFunc(tokens, func(t string) bool { _, ok := lx.expand[t]; return ok || scriptOf(t) == scriptCyrillic }) {
		var out []string
		for _, t := range tokens {
			if e, ok := lx.expand[t]; ok {
				out = append(out, e...)
			} else if e, ok := lx.expand[Stem(t)]; ok && scriptOf(t) == scriptCyrillic {
				out = append(out, e...)
			} else {
				out = append(out, t)
			}
		}
		tokens = out
	}
	for i, tok := range tokens {
		switch tok {
		case "no", "without", "без", "rather", "instead", "вместо":
			deny(1) // "no emoji", "rather than Y", "instead of Y": what follows
			continue
		case "longer", "more":
			if i > 0 && tokens[i-1] == "no" {
				continue
			}
		case "dislike", "dislikes", "disliked", "hate", "hates":
			r.neg = true
			addWord(relWord{key: "=prefer", denied: true})
			continue
		}
		parts := []string{tok}
		if _, ok := lx.syn[tok]; !ok {
			parts = splitDigits(tok) // "k8s" is a word, "2am" a number
		}
		for _, t := range parts {
			if isNumber(t) {
				t = strings.TrimLeft(t, "0")
				if t == "" {
					t = "0"
				}
				addValue(t)
				addWord(relWord{key: t, name: true})
				r.last = t
				continue
			}
			st := Stem(t)
			if lx.stop[t] {
				continue
			}
			if p, ok := lx.poles[t]; ok {
				r.poles = append(r.poles, p)
			} else if p, ok := lx.poles[st]; ok {
				r.poles = append(r.poles, p)
			}
			switch {
			case lx.neg[t] || lx.neg[st]:
				// A particle denies a word, a verb of stopping its
				// object too ("stopped drinking coffee").
				deny(1 + btoi(!lx.particle[t]))
				continue
			case lx.change[t] || lx.change[st]:
				r.change = true
				continue
			}
			v, ok := lx.values[t]
			if !ok {
				v, ok = lx.values[st]
			}
			if ok {
				addValue(v)
				addWord(relWord{key: v, name: true})
				r.last = v
				continue
			}
			if IsStopWord(t) || lx.stop[t] {
				continue
			}
			key := st
			if st == "отвеча" && i+1 < len(tokens) && tokens[i+1] == "за" {
				key = "=owns" // "отвечает за": is responsible for
			} else if s, ok := lx.syn[t]; ok {
				key = s
			} else if s, ok := lx.syn[st]; ok {
				key = s
			}
			w := relWord{key: key, weak: lx.weak[t] || lx.weak[st], role: lx.role[t] || lx.role[st] || lx.role[key]}
			if !w.weak && !w.role && key == st {
				sc := scriptOf(t)
				w.name = caps[t] || (sc == scriptLatin && (russian || !isCommonWord(t))) || (sc == scriptOther && t != "")
			}
			addWord(w)
			if !w.weak {
				r.last = key
			}
		}
	}
	for _, mk := range marks {
		m, k, n := mk[0], mk[0], 0
		for ; k < len(items) && n < mk[1]; k++ {
			items[k].denied = true
			if !items[k].weak {
				n++
			}
		}
		if n > 0 {
			continue
		}
		for k, n := m-1, 0; k >= 0 && n < negScope; k-- {
			items[k].denied = true
			if !items[k].weak {
				n++
			}
		}
	}
	at := map[string]int{}
	for _, w := range items {
		if k, ok := at[w.key]; ok {
			r.words[k].denied = r.words[k].denied && w.denied
			continue
		}
		at[w.key] = len(r.words)
		r.words = append(r.words, w)
	}
	slices.SortFunc(r.words, func(a, b relWord) int { return strings.Compare(a.key, b.key) })
	slices.Sort(r.poles)
	r.poles = slices.Compact(r.poles)
	slices.Sort(r.values)
	return r
}

// Relate is [Relate](newer, older, cosine).
func (r *Relater) Relate(older string, cosine float64) Relation {
	return r.RelateTo(NewRelater(older), cosine)
}

// RelateTokens is [Relater.Relate] given older's [Tokens] (the caller
// may have them already).
func (r *Relater) RelateTokens(older []string, cosine float64) Relation {
	return r.RelateTo(NewRelaterTokens(older), cosine)
}

// relOverlap is how two facts' content words line up.
type relOverlap struct {
	shared       int // strong words in both
	strongA      int // strong words of each side
	strongB      int
	onlyA, onlyB int // strong words on one side only
	roleA, roleB int // role words on one side only
	rolesA       bool
	rolesB       bool
	nameA, nameB int  // names and values on one side only
	lastA, lastB bool // each side's last strong word is its own
	// denial: a strong word denied on one side is asserted on the other
	denial bool
}

// overlap matches a's words with b's: the same key, or a spelling or
// derivation of it (see sameWord).
func overlap(ra, rb *Relater) relOverlap {
	a, b := ra.words, rb.words
	var o relOverlap
	ma, mb := make([]bool, len(a)), make([]bool, len(b))
	for i, j := 0, 0; i < len(a) && j < len(b); {
		switch c := strings.Compare(a[i].key, b[j].key); {
		case c == 0:
			ma[i], mb[j] = true, true
			o.denial = o.denial || a[i].denied != b[j].denied && !a[i].weak
			i++
			j++
		case c < 0:
			i++
		default:
			j++
		}
	}
	// Near forms among the words left: bounded, a long document compared
	// with a long document skips it.
	if len(a) <= 64 && len(b) <= 64 {
		for i := range a {
			if ma[i] {
				continue
			}
			for j := range b {
				if !mb[j] && sameWord(a[i].key, b[j].key) {
					ma[i], mb[j] = true, true
					o.denial = o.denial || a[i].denied != b[j].denied && !a[i].weak
					break
				}
			}
		}
	}
	for i, w := range a {
		o.rolesA = o.rolesA || w.role
		switch {
		case w.weak:
		case ma[i]:
			o.shared++
			o.strongA++
		default:
			o.strongA++
			o.onlyA++
			if w.role {
				o.roleA++
			}
			if w.name {
				o.nameA++
			}
			o.lastA = o.lastA || w.key == ra.last
		}
	}
	for j, w := range b {
		o.rolesB = o.rolesB || w.role
		switch {
		case w.weak:
		case mb[j]:
			o.strongB++
		default:
			o.strongB++
			o.onlyB++
			if w.role {
				o.roleB++
			}
			if w.name {
				o.nameB++
			}
			o.lastB = o.lastB || w.key == rb.last
		}
	}
	return o
}

// RelateTo is [Relater.Relate] given older's words read by
// [NewRelaterTokens]. It does not modify either Relater.
func (r *Relater) RelateTo(older *Relater, cosine float64) Relation {
	a, b := r, older
	o := overlap(a, b)
	if o.shared == 0 {
		if cosine >= 0.85 {
			return RelNearDuplicate
		}
		return RelUnrelated
	}
	if cosine >= 0 && cosine < 0.3 {
		return RelUnrelated
	}
	small := max(1, min(o.strongA, o.strongB))
	containment := float64(o.shared) / float64(small)
	jaccard := float64(o.shared) / float64(o.shared+o.onlyA+o.onlyB)
	// The same subject: most of the shorter fact's words are in the other.
	related := containment >= 0.5 && (o.shared >= 2 || small == 1)
	// Close enough for a negation, opposite words or a changed number:
	// "Releases go out on Fridays" and "... on Thursdays".
	close := containment >= 0.5 && (o.shared >= 2 || small <= 2)

	// Contradictions first: a one-word swap in a long sentence is as much
	// a contradiction as in a short one.
	switch {
	case (close || o.shared >= 2) && o.denial:
		return RelContradiction
	case (close || o.shared >= 1) && opposed(a.poles, b.poles):
		// Opposite words about a shared subject ("Tom works remotely",
		// "Tom works from the office").
		return RelContradiction
	case close && hasOutside(a.values, b.values) && hasOutside(b.values, a.values):
		return RelContradiction
	case (related || o.shared >= 2) && (a.change || b.change) && o.onlyA > 0 && o.onlyB > 0:
		return RelContradiction
	case o.rolesA && o.rolesB && (o.roleA > 0 || o.roleB > 0) && o.onlyA > 0 && o.onlyB > 0 && o.shared >= 1 && (related || o.shared <= 2):
		// The same person in another role or team.
		return RelContradiction
	case related && o.onlyA > 0 && o.onlyB > 0 && jaccard >= 0.4 &&
		(o.nameA > 0 && o.nameB > 0 && max(o.onlyA, o.onlyB) <= 3 || o.lastA && o.lastB && max(o.onlyA, o.onlyB) <= 2):
		// A value swapped in the same frame: a name for a name, or the
		// word that ends the statement ("the default branch is main").
		return RelContradiction
	}
	switch {
	case !related:
		if cosine >= 0.85 {
			return RelNearDuplicate
		}
		return RelUnrelated
	case o.onlyA == 0 && o.onlyB == 0:
		return RelNearDuplicate
	case cosine >= 0.9:
		return RelNearDuplicate
	case (o.onlyA == 0 || o.onlyB == 0) && o.nameA+o.nameB == 0 && o.shared >= 4 && 4*(o.onlyA+o.onlyB) <= o.shared:
		// A few ordinary words more in a long statement ("its own
		// repository", "language"): put differently, not more detail.
		return RelNearDuplicate
	case o.onlyA == 0 || o.onlyB == 0:
		// One says everything the other says, and more.
		return RelRefinement
	case min(o.onlyA, o.onlyB) == 1 && max(o.onlyA, o.onlyB) >= 3 && o.shared >= 2:
		// More detail, one word put differently.
		return RelRefinement
	case jaccard >= 0.5:
		// The same things in other words: no name or value swapped.
		return RelNearDuplicate
	}
	return RelUnrelated
}

// opposed reports whether a holds one pole of an antonym pair and b the
// other, and neither holds both.
func opposed(a, b []int) bool {
	for _, p := range a {
		q := p ^ 1
		if slices.Contains(b, q) && !slices.Contains(a, q) && !slices.Contains(b, p) {
			return true
		}
	}
	return false
}

// hasOutside reports whether sorted a has an element sorted b lacks.
func hasOutside(a, b []string) bool {
	for _, x := range a {
		if _, ok := slices.BinarySearch(b, x); !ok {
			return true
		}
	}
	return false
}

// capitalised returns the normalised words of s that start with an upper
// case letter inside a sentence (not after ". ", "! ", "? ", ": " or at
// the start): names, in any script.
func capitalised(s string) map[string]bool {
	var out map[string]bool
	start := true
	for i := 0; i < len(s); {
		r, n := utf8.DecodeRuneInString(s[i:])
		if !unicode.IsLetter(r) && !unicode.IsDigit(r) {
			if strings.ContainsRune(".!?:;\n—-", r) && (r != '-' || i == 0 || s[i-1] == ' ') {
				start = true
			}
			i += n
			continue
		}
		j := i
		for j < len(s) {
			r2, n2 := utf8.DecodeRuneInString(s[j:])
			if !unicode.IsLetter(r2) && !unicode.IsDigit(r2) {
				break
			}
			j += n2
		}
		if !start && unicode.IsUpper(r) {
			if out == nil {
				out = map[string]bool{}
			}
			for _, t := range Tokens(s[i:j]) {
				out[t] = true
			}
		}
		start = false
		i = j
	}
	return out
}

// splitDigits splits a token where digits meet short letter runs: "2am"
// is "2" and "am", "v1" is "v" and "1", "db2" is "db" and "2", so a
// number reads the same however it is written. A name with digits
// ("1password", "python3") stays whole.
func splitDigits(t string) []string {
	var out []string
	start, prevDigit := 0, false
	for i, r := range t {
		d := r >= '0' && r <= '9'
		if i > start && d != prevDigit {
			out = append(out, t[start:i])
			start = i
		}
		prevDigit = d
	}
	if start == 0 {
		return []string{t}
	}
	out = append(out, t[start:])
	for _, p := range out {
		if !isNumber(p) && utf8.RuneCountInString(p) > 3 {
			return []string{t}
		}
	}
	return out
}

func btoi(b bool) int {
	if b {
		return 1
	}
	return 0
}

func isNumber(t string) bool {
	for i := 0; i < len(t); i++ {
		if t[i] < '0' || t[i] > '9' {
			return false
		}
	}
	return t != ""
}

// sameWord reports whether two keys are forms of one word that the
// stemmer left apart: one letter dropped ("yml", "yaml"), or a long shared
// beginning ("config", "configur"; "дежур", "дежурн"). Numbers only equal
// themselves.
func sameWord(a, b string) bool {
	if a == b {
		return true
	}
	// Both rules keep the first letter: most pairs differ there.
	if a == "" || b == "" || a[0] != b[0] || isNumber(a) || isNumber(b) || strings.HasPrefix(a, "=") || strings.HasPrefix(b, "=") {
		return false
	}
	ra, rb := []rune(a), []rune(b)
	if len(ra) > len(rb) {
		ra, rb = rb, ra
	}
	if len(ra) >= 3 && len(rb) == len(ra)+1 {
		i := 0
		for i < len(ra) && ra[i] == rb[i] {
			i++
		}
		if i < len(ra) && slices.Equal(ra[i:], rb[i+1:]) {
			return true
		}
	}
	cp := 0
	for cp < len(ra) && ra[cp] == rb[cp] {
		cp++
	}
	if scriptOf(a) == scriptCyrillic && (cp >= 4 && cp >= len(ra)-1 || cp == len(ra) && cp >= 3 && len(rb)-cp <= 2) {
		return true // Russian stems keep more of the ending: "ответ", "отвеча"; "ауд", "аудит"
	}
	// One a whole beginning of the other: "postgr", "postgresql";
	// "elastic", "elasticsearch".
	return cp >= 5 && (4*cp >= 3*len(rb) || cp == len(ra))
}

// HardConflict reports whether newer and older conflict by negation,
// opposite words or a changed number, the contradictions that no word
// overlap can excuse.
func HardConflict(newer, older string) bool {
	a, b := NewRelater(newer), NewRelater(older)
	return overlap(a, b).denial || opposed(a.poles, b.poles) ||
		(hasOutside(a.values, b.values) && hasOutside(b.values, a.values))
}
