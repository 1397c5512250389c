package retrieve

import (
	"github.com/holomem/holomem/hrr"
	"github.com/holomem/holomem/text"
)

// DeriveHRR is the compact holographic vector a store write gives content
// (see encodeHRR), with aliases the namespace's alias map as the store
// returns it (alias key -> entity name). verify --deep compares it with
// the stored vector to find a vector changed on disk.
func DeriveHRR(content string, aliases map[string]string) []byte {
	ents := text.Extract(content, nil)
	keys := make([]string, 0, len(ents))
	for _, e := range ents {
		if e.Recurring && e.Kind == text.EntityTerm {
			continue
		}
		k := text.EntityKey(e.Name)
		if name, ok := aliases[k]; ok {
			k = text.EntityKey(name)
		}
		keys = append(keys, k)
	}
	return hrr.EncodeFactCompact(text.Tokens(content), keys)
}
