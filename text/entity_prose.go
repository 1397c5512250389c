package text

import (
	"strings"
	"sync"
	"unicode"
	"unicode/utf8"
)

// --- aliases ---

// akaWords are the markers of "X aka Y", matched case-insensitively as
// whole words.
var akaWords = []string{"a.k.a.", "a.k.a", "aka"}

func (x *extractor) aliases() {
	s := x.s
	lower := strings.ToLower(s) // ASCII markers: byte offsets stay valid
	if len(lower) != len(s) {
		lower = asciiLower(s)
	}
	for i := 0; i < len(s); {
		j := strings.Index(lower[i:], "a")
		if j < 0 {
			break
		}
		a := i + j
		i = a + 1
		var b int
		for _, w := range akaWords {
			if strings.HasPrefix(lower[a:], w) {
				b = a + len(w)
				break
			}
		}
		if b == 0 || isWordRune(x.runeBefore(a)) || isWordRune(x.runeAt(b)) || !x.free(a, b) {
			continue
		}
		xs, xe, xcs := x.nameBefore(a)
		ys, ye, yce := x.nameAfter(b)
		if xs < 0 || ys < 0 || !x.free(xcs, yce) {
			continue
		}
		x.add(xs, EntityAlias, s[xs:xe], s[ys:ye])
		x.claim(xcs, yce)
		i = yce
	}
}

// asciiLower lower-cases ASCII letters only, keeping byte offsets.
func asciiLower(s string) string {
	b := []byte(s)
	for i, c := range b {
		if 'A' <= c && c <= 'Z' {
			b[i] = c + 'a' - 'A'
		}
	}
	return string(b)
}

// nameBefore finds the name that ends just before the "aka" at a: a quoted
// string, a run of capitalised words or the last chunk of text. It returns
// the name's span and where the claimed span (quotes included) starts, or
// -1s when there is none.
func (x *extractor) nameBefore(a int) (start, end, claim int) {
	s := x.s
	end = a
	for end > 0 {
		r, n := utf8.DecodeLastRuneInString(s[:end])
		if !unicode.IsSpace(r) && r != '(' && r != ',' {
			break
		}
		end -= n
	}
	if end == 0 {
		return -1, -1, -1
	}
	if r, n := utf8.DecodeLastRuneInString(s[:end]); strings.ContainsRune(`"»”'’“`, r) {
		ls := lineStart(s, end-n)
		open := strings.LastIndexAny(s[ls:end-n], `"«“'‘„`)
		if open += ls; open < ls {
			return -1, -1, -1
		}
		_, on := utf8.DecodeRuneInString(s[open:])
		start, end := trimSpan(s, open+on, end-n)
		return start, end, open
	}
	words := x.wordsIn(lineStart(s, end), end)
	if n := len(words); n > 0 && words[n-1].end == end && words[n-1].capital {
		k := n - 1
		for k > 0 && words[k-1].capital && s[words[k-1].end:words[k].start] == " " {
			k--
		}
		return words[k].start, end, words[k].start
	}
	start = end
	for limit := lineStart(s, end); start > limit; {
		r, n := utf8.DecodeLastRuneInString(s[limit:start])
		if unicode.IsSpace(r) {
			break
		}
		start -= n
	}
	start, end, _ = x.trimChunk(start, end)
	if start >= end {
		return -1, -1, -1
	}
	return start, end, start
}

// nameAfter finds the name that starts after the "aka" ending at b, and
// where the claimed span (quotes included) ends.
func (x *extractor) nameAfter(b int) (start, end, claim int) {
	s := x.s
	start = b
	for start < len(s) {
		r, n := utf8.DecodeRuneInString(s[start:])
		if !unicode.IsSpace(r) && r != ':' {
			break
		}
		start += n
	}
	if start == len(s) {
		return -1, -1, -1
	}
	if r, n := utf8.DecodeRuneInString(s[start:]); strings.ContainsRune(`"«“'‘„`, r) {
		close := strings.IndexAny(s[start+n:lineEnd(s, start+n)], "\"»”'’“")
		if close < 0 {
			return -1, -1, -1
		}
		qe := start + n + close
		_, cn := utf8.DecodeRuneInString(s[qe:])
		start, end := trimSpan(s, start+n, qe)
		return start, end, qe + cn
	}
	words := x.wordsIn(start, lineEnd(s, start))
	if len(words) > 0 && words[0].start == start && words[0].capital {
		k := 0
		for k+1 < len(words) && words[k+1].capital && s[words[k].end:words[k+1].start] == " " {
			k++
		}
		return start, words[k].end, words[k].end
	}
	end = start
	for limit := lineEnd(s, start); end < limit; {
		r, n := utf8.DecodeRuneInString(s[end:])
		if unicode.IsSpace(r) {
			break
		}
		end += n
	}
	start, end, _ = x.trimChunk(start, end)
	if start >= end {
		return -1, -1, -1
	}
	return start, end, end
}

// lookaround bounds how far the alias pass looks for a name around "aka",
// in bytes, so that many markers on one long line stay linear.
const lookaround = 2 * MaxEntityName

// lineStart returns where the line holding s[i] starts, looking back at
// most lookaround bytes (to a rune boundary).
func lineStart(s string, i int) int {
	from := max(0, i-lookaround)
	for from > 0 && !utf8.RuneStart(s[from]) {
		from++
	}
	return from + strings.LastIndexByte(s[from:i], '\n') + 1
}

// lineEnd returns where the line holding s[i] ends, looking ahead at most
// lookaround bytes (to a rune boundary).
func lineEnd(s string, i int) int {
	to := min(len(s), i+lookaround)
	for to < len(s) && !utf8.RuneStart(s[to]) {
		to--
	}
	if j := strings.IndexByte(s[i:to], '\n'); j >= 0 {
		return i + j
	}
	return to
}

func trimSpan(s string, start, end int) (int, int) {
	for start < end && s[start] == ' ' {
		start++
	}
	for end > start && s[end-1] == ' ' {
		end--
	}
	if start >= end || utf8.RuneCountInString(s[start:end]) > maxQuoted {
		return -1, -1
	}
	return start, end
}

// --- quotes ---

// quotePairs maps each opening quote to its closing one.
var quotePairs = map[rune]rune{'"': '"', '«': '»', '“': '”', '„': '“', '\'': '\'', '‘': '’'}

func (x *extractor) quotes() {
	s := x.s
	for i := 0; i < len(s); {
		r, n := utf8.DecodeRuneInString(s[i:])
		closer, ok := quotePairs[r]
		if !ok || x.used[i] || isWordRune(x.runeBefore(i)) {
			i += n
			continue
		}
		symmetric := closer == r || r == '„'
		if next := x.runeAt(i + n); next < 0 || symmetric && unicode.IsSpace(next) {
			i += n
			continue
		}
		start, end, count := i+n, -1, 0
		for j := start; j < len(s) && count <= maxQuoted; {
			c, m := utf8.DecodeRuneInString(s[j:])
			if c == '\n' || unicode.IsControl(c) {
				break
			}
			if c == closer && !(symmetric && (unicode.IsSpace(x.runeBefore(j)) || isWordRune(x.runeAt(j+m)))) {
				end = j
				break
			}
			count++
			j += m
		}
		if end < 0 || count > maxQuoted {
			i += n
			continue
		}
		if qs, qe := trimSpan(s, start, end); qs >= 0 {
			x.add(qs, EntityQuoted, s[qs:qe])
		}
		_, m := utf8.DecodeRuneInString(s[end:])
		i = end + m
	}
}

// --- capitalised words and phrases ---

// word is a run of letters and digits, with inner hyphens and apostrophes.
type word struct {
	start, end int
	capital    bool // starts with an upper-case or title-case letter
}

// wordsIn lexes s[start:end] into words.
func (x *extractor) wordsIn(start, end int) []word {
	s := x.s
	var out []word
	for i := start; i < end; {
		r, n := utf8.DecodeRuneInString(s[i:end])
		if !isWordRune(r) || r == '_' {
			i += n
			continue
		}
		w := word{start: i, capital: unicode.IsUpper(r) || unicode.IsTitle(r)}
		i += n
		for i < end {
			r, n = utf8.DecodeRuneInString(s[i:end])
			if isWordRune(r) && r != '_' {
				i += n
				continue
			}
			if r == '-' || r == '\'' || r == '’' {
				if next, _ := utf8.DecodeRuneInString(s[i+n : end]); i+n < end && (unicode.IsLetter(next) || unicode.IsDigit(next)) {
					i += n
					continue
				}
			}
			break
		}
		w.end = i
		out = append(out, w)
	}
	return out
}

// phraseParticles may join capitalised words inside a name: "Bank of
// America", "Ludwig van Beethoven".
var phraseParticles = map[string]bool{
	"of": true, "de": true, "da": true, "di": true, "du": true, "del": true, "der": true,
	"van": true, "von": true, "la": true, "le": true, "al": true, "bin": true, "y": true,
}

// maxPhraseWords bounds a capitalised phrase; a longer run (a Title Case
// headline) is cut into several.
const maxPhraseWords = 6

func (x *extractor) propers() {
	s := x.s
	words := x.wordsIn(0, len(s))
	var phrase []word
	flush := func() {
		// Drop leading sentence starters and common words: "The", "We", "Это".
		for len(phrase) > 0 && isStopword(s[phrase[0].start:phrase[0].end]) {
			phrase = phrase[1:]
		}
		for len(phrase) > 0 && !phrase[len(phrase)-1].capital {
			phrase = phrase[:len(phrase)-1]
		}
		if len(phrase) == 1 && utf8.RuneCountInString(s[phrase[0].start:phrase[0].end]) == 1 {
			phrase = nil // a lone initial or a one-letter word
		}
		if len(phrase) == 1 && x.commonOpener(phrase[0]) {
			// "Kudos" or "Previously" opening a sentence: a name only where
			// the namespace already knows it ("Zephyr ships weekly" after
			// "Erin owns the Zephyr project").
			w := phrase[0]
			x.weak = append(x.weak, candidate{pos: w.start, Entity: Entity{Name: s[w.start:w.end], Kind: EntityProper, Recurring: true}})
			phrase = nil
		}
		if len(phrase) > 0 {
			end := phrase[len(phrase)-1].end
			name := s[phrase[0].start:end]
			if st := strings.TrimSuffix(strings.TrimSuffix(name, "'s"), "’s"); st != name && len(phrase) > 0 {
				name = st
			}
			x.add(phrase[0].start, EntityProper, name)
		}
		phrase = phrase[:0]
	}
	for k, w := range words {
		joined := len(phrase) > 0 && s[phrase[len(phrase)-1].end:w.start] == " "
		if !x.free(w.start, w.end) {
			flush()
			continue
		}
		if !w.capital {
			// A particle continues a phrase only between two capitalised words.
			if joined && phraseParticles[s[w.start:w.end]] && k+1 < len(words) &&
				words[k+1].capital && s[w.end:words[k+1].start] == " " {
				phrase = append(phrase, w)
				continue
			}
			flush()
			continue
		}
		if !joined || len(phrase) >= maxPhraseWords {
			flush()
		}
		phrase = append(phrase, w)
	}
	flush()
}

// stopwords are capitalised words that are not names on their own:
// sentence starters, pronouns, articles and a few imperative verbs common
// in agent memory, in English and Russian (keys normalised, ё as е). The
// set is built on first use (~45 KiB and 400 Normalize calls): most
// processes extract no entities.
var stopwords = sync.OnceValue(func() map[string]bool {
	m := map[string]bool{}
	for _, w := range strings.Fields(`
		a an the this that these those there here it its it's i i'm i've i'd i'll we we're we've
		us our you your he she his her they them their my me mine
		and or but nor so yet if then than when while where why how what which who whom whose
		in on at to for of from by with without as into onto about over under after before
		since until because though although however also too just only even still again
		is are was were be been being am do does did don't doesn't didn't can can't could
		will won't would should shouldn't must may might shall have has had not no yes
		all any some each every both either neither none many much more most few other such
		let let's please note notes use using always never remember prefer see run add fix make
		set check keep avoid try ok okay thanks thank hi hello hey well maybe perhaps today
		yesterday tomorrow now once first next finally then instead otherwise anyway
		это эта этот эти то тот та те мы я он она оно они вы ты мой моя наш наша ваш ваша их его ее
		в во на и а но или что чтобы как так когда если там тут здесь все всё весь вся для по с со
		к ко о об обо от до из у за при не нет да уже еще ещё вот ну же ли бы
		сегодня вчера завтра теперь потом затем также тоже поэтому однако нужно надо можно
		пожалуйста привет спасибо после перед где куда почему зачем кто какой какая какие
		каждый всегда никогда иногда сейчас используй используем запомни помни
		user users item step action meeting closes fixes resolves fixed added updated removed
		changed reported released merged deploy deployed install configure second third fourth last
		ux ui todo fixme wip fyi imo imho afaik asap tldr
		пользователь пользователи проект сервер задача шаг пункт встреча исправлено добавлено
		обновлено удалено важно итак например кстати
	`) {
		m[Normalize(w)] = true
	}
	return m
})

func isStopword(w string) bool {
	return stopwords()[Normalize(strings.ReplaceAll(w, "’", "'"))]
}
