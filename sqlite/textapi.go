package sqlite

import "github.com/holomem/holomem/text"

// The text functions the store depends on, in one place.

func indexText(s string) string      { return text.IndexText(s) }
func matchAll(q string) string       { return text.MatchAll(q) }
func matchAny(q string) string       { return text.MatchAny(q) }
func entityKey(n string) string      { return text.EntityKey(n) }
func entities(s string) []textEntity { return textEntities(s) }
