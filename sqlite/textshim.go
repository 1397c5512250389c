package sqlite

// A private stand-in for package text while it is being written. It will be
// replaced by the real text.Entities.

import (
	"strings"
	"unicode"
)

type textEntity struct {
	Name    string
	Kind    string
	Aliases []string
}

func textEntities(s string) []textEntity {
	var out []textEntity
	words := strings.Fields(s)
	for i := 0; i < len(words); i++ {
		w := strings.Trim(words[i], ".,;:!?()\"'`")
		r := []rune(w)
		if len(r) < 2 || !(unicode.IsUpper(r[0]) || strings.Contains(w, "_")) {
			continue
		}
		e := textEntity{Name: w, Kind: "name"}
		if i+2 < len(words) && words[i+1] == "aka" {
			e.Aliases = append(e.Aliases, strings.Trim(words[i+2], ".,;:!?()\"'`"))
			i += 2
		}
		out = append(out, e)
	}
	return out
}
