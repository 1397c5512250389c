package retrieve_test

import (
	"fmt"
	"slices"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/holomem/holomem"
	"github.com/holomem/holomem/internal/testutil"
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
