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
// marks as separators (so a Devanagari word splits at its vowel signs:
// "हिन्दी" gives "ह", "न", "द") but join the Latin diacritics in
// U+0300..U+0331 that it knows how to remove, and treat a run of Han, Kana
// or Thai as one token. A token made only of removable diacritics is
// dropped, as FTS5 drops it. Emoji newer than SQLite's tables (U+1F774 on,
// such as 🤔) are token characters while older ones (🚀) separate. The
// table in tokenchar_table.go is therefore probed from the linked SQLite, not derived from package
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
// # Entities and query hygiene
//
// [Entities] finds names without a model, in passes from the most specific
// to the least: URLs (claimed so nothing inside them counts; GitHub issue
// and PR URLs become issue refs), "X aka Y" aliases, `code spans`, #123,
// owner/repo#123, GH-123 and #tags, then white-space chunks that are file
// paths or code identifiers, quoted strings, and finally capitalised words
// and phrases. Stores match names by [EntityKey], never by LIKE.
// [StripForEmbedding] and [IssueRefs] prepare a query: the first removes
// what only confuses a sentence embedder (URLs, images, paths), the second
// lists the references that retrieval expands into the records they name.
//
// # Caveats
//
// Stemming is language-guessing by script: an English stemmer runs on
// French or German words, and Ukrainian is stemmed as Russian. Stems only
// help within one language; a Russian query for an English fact is the
// semantic channel's job. MatchAll requires every token, stop words
// included ("в", "the"); callers relax to MatchAny when it finds too little.
//
// Entities is a heuristic: a capitalised sentence starter outside its
// stopword lists (English and Russian pronouns, articles, conjunctions and
// frequent note and commit verbs) becomes an entity, mixed-case brands such
// as GitHub count as identifiers, and lower-case names are found only when
// they look like code, paths, tags or issue refs.
//
// # Concurrency
//
// Every function is safe for concurrent use. [Stem] memoises results in a
// small lock-free cache; results never depend on it.
package text
