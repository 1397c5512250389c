// Package storetest is the conformance suite every [holomem.Store] must
// pass. A backend runs it from one test:
//
//	func TestStore(t *testing.T) {
//		storetest.Run(t, func(t *testing.T) holomem.Store { return mustOpen(t) })
//	}
//
// # What it checks
//
// Everything the Store interface promises that does not depend on the
// backend: create, find, update and delete of facts with their duplicate and
// external-key rules, validation of bad input, timestamps (feedback and
// metadata edits never move UpdatedAt, content edits do), supersede,
// full-text search (ranking, the all-terms-then-any-term relaxation, score
// normalisation, Russian and English inflection, ё folding, namespaces and
// FTS operator characters as plain data), entities and aliases (with '%' and
// '_' as literal characters), embeddings per model, HRR scans, edges, stats
// with edge activity, meta values and concurrent use.
//
// Then one subtest per optional capability of holomem.Capabilities
// ("Capability/NAME/..."): each runs against every backend that has the
// capability and is skipped, saying so, on one that lacks it. A capability
// added to store.go without a test here fails the suite.
//
// # Caveats
//
// Entity tests rely on package text's extractor finding capitalised names,
// names with '_' and "X aka Y" aliases. The suite uses wall-clock time only
// to check that a content edit moves UpdatedAt forward from a fixed date in
// the past; it never measures durations.
package storetest
