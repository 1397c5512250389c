package retrieve_test

import (
	"fmt"
	"slices"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/holomem/holomem"
	"github.com/holomem/holomem/internal/testkit/testutil"
	"github.com/holomem/holomem/retrieve"
)

// A long fact's hit shows the passage that matched, not its first line.
func TestRecall_snippetFromBestPassage(t *testing.T) {
	m, _ := testutil.MustOpenMemory(t, retrieve.Options{})
	var b strings.Builder
	for i := range 60 {
		fmt.Fprintf(&b, "Paragraph %d talks about lorem ipsum and other filler words.\n\n", i)
	}
	b.WriteString("The ripgreprc configuration file was added in version 0.10.\n\n")
	for i := range 60 {
		fmt.Fprintf(&b, "Closing paragraph %d about more filler.\n\n", i)
	}
	long := remember(t, m, b.String())
	res, err := m.Recall(t.Context(), holomem.Query{Text: "ripgreprc configuration file", NoTouch: true})
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Hits) == 0 || res.Hits[0].Fact.ID != long.ID {
		t.Fatalf("hits %v, want #%d", ids(res.Hits), long.ID)
	}
	h := res.Hits[0]
	if !strings.Contains(h.Snippet, "ripgreprc configuration file") || utf8.RuneCountInString(h.Snippet) > 320 {
		t.Errorf("snippet %q", h.Snippet)
	}
	if h.Passage == nil || !strings.Contains(long.Content[h.Passage.Start:h.Passage.End], "ripgreprc") {
		t.Errorf("passage %+v does not hold the match", h.Passage)
	}
	var marked []string
	for _, mt := range h.Matches {
		marked = append(marked, h.Snippet[mt[0]:mt[1]])
	}
	if !slices.Equal(marked, []string{"ripgreprc", "configuration", "file"}) {
		t.Errorf("matches %q", marked)
	}
}

// Offset pages through the ranking: offset k limit n is hits k..k+n of
// limit k+n.
func TestRecall_offset(t *testing.T) {
	m, _ := testutil.MustOpenMemory(t, retrieve.Options{})
	for i := range 25 {
		remember(t, m, fmt.Sprintf("the build cache lives in directory number %d", i))
	}
	all, err := m.Recall(t.Context(), holomem.Query{Text: "build cache directory", Limit: 20, NoTouch: true})
	if err != nil {
		t.Fatal(err)
	}
	page, err := m.Recall(t.Context(), holomem.Query{Text: "build cache directory", Limit: 10, Offset: 10, NoTouch: true})
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(ids(page.Hits), ids(all.Hits[10:20])) {
		t.Errorf("page 2 = %v, want %v", ids(page.Hits), ids(all.Hits[10:20]))
	}
	past, err := m.Recall(t.Context(), holomem.Query{Text: "build cache directory", Offset: 500, NoTouch: true})
	if err != nil || len(past.Hits) != 0 || past.Hits == nil {
		t.Errorf("past the end: %v, %v", past, err)
	}
	if _, err := m.Recall(t.Context(), holomem.Query{Text: "x", Offset: -1}); err == nil {
		t.Error("negative offset accepted")
	}
}

// A long fact is scored by its best passage: words scattered over a long
// document no longer add up to outrank the short fact that answers, as
// they do when the whole document is scored (WholeFactBM25).
func TestRecall_passageScoring(t *testing.T) {
	var b strings.Builder
	filler := strings.Repeat("Unrelated words about meetings, lunches and weather follow here. ", 20)
	for i := range 30 {
		b.WriteString(filler + "\n\n")
		switch i % 3 {
		case 0:
			fmt.Fprintf(&b, "Section %d: the release process has many steps and checklists.\n\n", i)
		case 1:
			fmt.Fprintf(&b, "Section %d: the signing of artifacts happens on a build machine.\n\n", i)
		default:
			fmt.Fprintf(&b, "Section %d: a key ceremony is planned for some later quarter.\n\n", i)
		}
	}
	doc := b.String()
	const answer = "The release signing key rotates every 90 days"
	fts := map[bool]map[int64]float64{}
	for _, whole := range []bool{false, true} {
		m, _ := testutil.MustOpenMemory(t, retrieve.Options{WholeFactBM25: whole})
		long := remember(t, m, doc)
		short := remember(t, m, answer)
		res, err := m.Recall(t.Context(), holomem.Query{Text: "release signing key", NoTouch: true})
		if err != nil {
			t.Fatal(err)
		}
		fts[whole] = map[int64]float64{}
		for _, h := range res.Hits {
			fts[whole][h.Fact.ID] = h.Scores[holomem.ChannelFTS]
			if h.Fact.ID == long.ID && !whole && h.Passage == nil {
				t.Errorf("the long fact's hit names no passage")
			}
		}
		if fts[whole][short.ID] == 0 || fts[whole][long.ID] == 0 {
			t.Fatalf("whole=%v: hits %v", whole, ids(res.Hits))
		}
		if !whole && res.Hits[0].Fact.ID != short.ID {
			t.Errorf("by passages the short answer is not first: %v", ids(res.Hits))
		}
	}
	if fts[false][2]/fts[false][1] <= fts[true][2]/fts[true][1] {
		t.Errorf("passages do not favour the short answer over the long document: %v (passages) vs %v (whole)", fts[false], fts[true])
	}
}
