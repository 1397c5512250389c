package docs

import (
	"reflect"
	"testing"
)

func TestLinks_parse(t *testing.T) {
	md := "# T\n" +
		"See [design](design.md#3-recall-pipeline) and ![shot](ui/search.png \"title\").\n" +
		"`[not](a-link.md)` in a code span, [web](https://example.com).\n" +
		"```\n[in a fence](nope.md)\n```\n" +
		"| [a](a.md) | [b](../b.md) |\n"
	got := links(md)
	want := []link{
		{2, "design.md#3-recall-pipeline"}, {2, "ui/search.png"},
		{3, "https://example.com"},
		{7, "a.md"}, {7, "../b.md"},
	}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("links = %v, want %v", got, want)
	}
}

func TestHeadingSlugs(t *testing.T) {
	md := "# Design\n## 3. Recall pipeline\n### 3.4 Score: fusion and decay\n" +
		"## Moving a memory: `holomem copy`\n## Faults\n## Faults\n" +
		"```\n# not a heading\n```\n#hashtag\n## Ёлки, палки\n"
	got := headingSlugs(md)
	want := []string{"design", "3-recall-pipeline", "34-score-fusion-and-decay",
		"moving-a-memory-holomem-copy", "faults", "faults-1", "ёлки-палки"}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("headingSlugs = %q, want %q", got, want)
	}
}

func TestDesignSections(t *testing.T) {
	got := designSections("# Design\n## 3. Recall pipeline\n### 3.5 Graph: PPR\n## 10. Measured\n#### 4.1 fts\n")
	want := map[string]bool{"3": true, "3.5": true, "10": true, "4.1": true}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("designSections = %v, want %v", got, want)
	}
}

func TestSpeakToUsers_patterns(t *testing.T) {
	for _, tc := range []struct {
		line string
		bad  bool
	}{
		{"measured in issue 10", true},
		{"see issues #27", true},
		{"the third session", true},
		{"Sessions ended", true},
		{"`holomem eval --locomo ../shared/eval/locomo-dev`", true},
		{"`#N` in titles such as `fix(module #4409):`", false},
		{"the issue's fact <-> the PR", false},
		{"a login cookie", false},
	} {
		bad := issueNumber.MatchString(tc.line) || sessionWord.MatchString(tc.line) || sharedPath.MatchString(tc.line)
		if bad != tc.bad {
			t.Errorf("%q: flagged %v, want %v", tc.line, bad, tc.bad)
		}
	}
}
