package retrieve

import (
	"github.com/holomem/holomem"
	"github.com/holomem/holomem/text"
)

// attachSnippets gives each hit its snippet: the window of its content
// where the query's stems (as recall matches them) are densest, taken from
// its best passage when the fact is long. It runs once here, so every door
// shows the same snippet.
func attachSnippets(hits []holomem.Hit, stems []string) {
	for i := range hits {
		f := hits[i].Fact
		if f == nil {
			continue
		}
		var sn text.Snippet
		if p := hits[i].Passage; p != nil {
			// Recall chose the passage (BM25 over passages).
			sn = text.MakeSnippetIn(f.Content, stems, text.Passage{Index: p.Index, Start: p.Start, End: p.End})
		} else {
			sn = text.MakeSnippet(f.Content, stems)
		}
		hits[i].Snippet, hits[i].Matches = sn.Text, sn.Matches
		if p := sn.Passage; p != nil {
			hits[i].Passage = &holomem.Passage{Index: p.Index, Start: p.Start, End: p.End}
		}
	}
}
