package text

import (
	"strings"
	"sync"
)

// Stop words are left out of queries (never out of the index): function
// words and question words ("what", "does", "when", "как", "где") match
// almost every fact, so a fact that shares only them with the query is
// noise, and requiring them would hide the facts that answer. The lists
// are English and Russian (ё folded to е, as tokens are); they hold no
// content words, so a query made only of stop words is kept whole. The set
// is built on first use (~45 KiB): not every process looks a word up.
var stopWords = sync.OnceValue(func() map[string]struct{} {
	m := map[string]struct{}{}
	for _, w := range strings.Fields(stopEN + " " + stopRU) {
		m[w] = struct{}{}
	}
	return m
})

const stopEN = `a about above after again against all am an and any are aren as at be because been before
being below between both but by can cannot could couldn did didn do does doesn doing don down during each
few for from further had hadn has hasn have haven having he her here hers herself him himself his how i if
in into is isn it its itself just let me more most my myself no nor not now of off on once only or other
ought our ours ourselves out over own same shan she should shouldn so some such than that the their theirs
them themselves then there these they this those through to too under until up very was wasn we were weren
what when where which while who whom whose why will with won would wouldn you your yours yourself
yourselves s t d ll m re ve also ever every much many may might must shall tell please kind sort
whatever whenever wherever whichever whoever however anything something everything nothing`

const stopRU = `а без более бы был была были было быть в вам вас весь во вот все всего всех вы где да даже для до
его ее ей ему если есть еще же за здесь и из или им их к как какая какие каким какой какое каких когда кого
ком кому кто ли либо мне мной может мы на над надо наш не него нее нет ни них но ну о об однако он она они
оно от очень по под при про с со так также такой там те тем то того тоже той только том ты у уже хотя чего
чей чем что чтобы чье чья эта эти это этот я зачем почему откуда куда сколько который которая которые
которое которого котором какого каком разве ли нибудь расскажи скажи`

// IsStopWord reports whether a normalised token is on the English or
// Russian stop list.
func IsStopWord(tok string) bool {
	_, ok := stopWords()[tok]
	return ok
}

// ContentTokens returns the tokens of s without stop words, or all its
// tokens when every one is a stop word ("who is who" still searches).
func ContentTokens(s string) []string {
	all := Tokens(s)
	out := make([]string, 0, len(all))
	for _, t := range all {
		if !IsStopWord(t) {
			out = append(out, t)
		}
	}
	if len(out) == 0 {
		return all
	}
	return out
}

// QueryText is s reduced to its content tokens, space-separated: the text
// the full-text channel searches (see [ContentTokens]).
func QueryText(s string) string {
	return strings.Join(ContentTokens(s), " ")
}
