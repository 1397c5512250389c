package retrieve

import (
	"context"
	"fmt"
	"sort"
	"strings"

	"github.com/holomem/holomem"
)

// maxElsewhereNamespaces bounds how many other namespaces an empty recall
// searches for its hint, so a store with thousands of namespaces does not
// make "nothing found" slow.
const maxElsewhereNamespaces = 32

// elsewhere searches the other namespaces for the query's words, with the
// same options as recall's full-text channel. It runs only when recall
// found nothing; a failure gives no hint rather than failing the recall.
func (m *Memory) elsewhere(ctx context.Context, searched, query string, opts []holomem.SearchOption) []holomem.NamespaceMatches {
	var nss []string
	if nl, ok := holomem.As[holomem.NamespaceLister](m.store); ok {
		list, err := nl.Namespaces(ctx)
		if err != nil {
			return nil
		}
		nss = list
	} else {
		st, err := m.store.Stats(ctx, "")
		if err != nil {
			return nil
		}
		for ns := range st.Namespaces {
			nss = append(nss, ns)
		}
	}
	sort.Strings(nss)
	var out []holomem.NamespaceMatches
	n := 0
	// A caller scoped to some namespaces hears only of those: telling it
	// that another tenant's facts match a word would let it probe them.
	grant := holomem.GrantFrom(ctx)
	for _, ns := range nss {
		if ns == searched || !grant.CanRead(ns) {
			continue
		}
		if n++; n > maxElsewhereNamespaces {
			break
		}
		ms, err := m.store.SearchText(ctx, ns, query, holomem.MaxElsewhereMatches, opts...)
		if err != nil || len(ms) == 0 {
			continue
		}
		out = append(out, holomem.NamespaceMatches{Namespace: ns, Matches: len(ms)})
	}
	sort.SliceStable(out, func(i, j int) bool { return out[i].Matches > out[j].Matches })
	return out
}

// elsewhereNote tells a caller where the query does match.
func elsewhereNote(searched string, es []holomem.NamespaceMatches) string {
	parts := make([]string, len(es))
	for i, e := range es {
		more := ""
		if e.Matches >= holomem.MaxElsewhereMatches {
			more = "+"
		}
		parts[i] = fmt.Sprintf("%q (%d%s)", e.Namespace, e.Matches, more)
	}
	return fmt.Sprintf("nothing found in namespace %q; facts matching the words are in namespace %s", searched, strings.Join(parts, ", "))
}
