// Package text is holomem's text toolkit: normalisation, tokens that line up
// with SQLite FTS5, Snowball stems, FTS5 query building that never lets user
// text become syntax, Jaccard similarity, deterministic entity extraction
// and query hygiene. It is a leaf: pure functions over strings, safe for
// concurrent use, importing nothing from the module.
//
// # Normalisation and tokens
//
// [Normalize] lower-cases, folds ё to е (FTS5's remove_diacritics does not
// touch Cyrillic), turns control characters into spaces and invalid UTF-8
// into U+FFFD. [Tokens] splits the normalised text exactly where FTS5's
// unicode61 tokenizer does. That is not the same as unicode.IsLetter: the
// tokenizer's tables come from SQLite's Unicode version, count unassigned
// code points and private use as token characters, treat most combining
// marks as separators (so Devanagari and Thai words split at vowel signs)
// but join the Latin diacritics U+0300..U+0331 it knows how to remove, and
// treat a run of Han or Kana as one token. The table in tokenchar_table.go
// is therefore probed from the linked SQLite, not derived from package
// unicode; TestTokenTable re-checks it against the live tokenizer and
// `go test -run TestTokenTable -gen` regenerates it after a SQLite upgrade.
//
// # Stems and the index
//
// [Stem] applies the Russian Snowball stemmer to Cyrillic tokens and the
// English one to Latin tokens. The FTS5 index stores [IndexText]: the tokens
// followed by the stems that differ from them. A query built by [MatchAll]
// or [MatchAny] asks for each token in its exact or stemmed form, so
// "россию" finds "России" and "deploying" finds "deployed", and a document
// holding the exact form scores higher because it matches both.
//
// # Caveats
//
// Stemming is language-guessing by script: an English stemmer runs on
// French or German words, and Ukrainian is stemmed as Russian. Stems only
// help within one language; a Russian query for an English fact is the
// semantic channel's job. FTS5 truncates tokens longer than 32 KiB, which
// Tokens does not.
//
// [Entities] is a heuristic without a model: capitalised sentence starters
// outside its small stopword lists become entities, and lower-case names
// are found only when they look like code, paths, tags or issue refs.
package text
