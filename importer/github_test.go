package importer_test

import (
	"encoding/json"
	"fmt"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/holomem/holomem"
	"github.com/holomem/holomem/importer"
)

// collect runs an importer and returns the records it emitted.
func collect(t testing.TB, run func(fn func(importer.Record) error) (importer.Summary, error)) ([]importer.Record, importer.Summary) {
	t.Helper()
	var recs []importer.Record
	sum, err := run(func(r importer.Record) error {
		recs = append(recs, r)
		return nil
	})
	if err != nil {
		t.Fatalf("import: %v", err)
	}
	return recs, sum
}

func prJSON(title, body, branch string) string {
	b, _ := json.Marshal(map[string]any{
		"number": 100, "title": title, "body": body, "state": "MERGED", "headRefName": branch,
		"url": "https://github.com/acme/app/pull/100", "mergedAt": "2025-03-01T10:00:00Z",
		"labels": []any{}, "closingIssuesReferences": []any{},
	})
	return "[" + string(b) + "]"
}

// linkStrings renders links as "from<reason>".
func linkStrings(ls []importer.Link) []string {
	var out []string
	for _, l := range ls {
		if l.ToKey != "github:acme/app#100" || l.Kind != holomem.EdgeCausal {
			out = append(out, fmt.Sprintf("bad link %+v", l))
			continue
		}
		out = append(out, strings.TrimPrefix(l.FromKey, "github:")+" "+l.Reason)
	}
	return out
}

func TestGitHub_Patterns(t *testing.T) {
	tests := []struct {
		name                string
		title, body, branch string
		want                []string
	}{
		{name: "TitleModule", title: "fix(module #4409): handle nil", want: []string{"acme/app#4409 title"}},
		{name: "TitleParens", title: "Handle empty config (#12)", want: []string{"acme/app#12 title"}},
		{name: "TitleEnd", title: "Crash on start #12", want: []string{"acme/app#12 title"}},
		{name: "TitleColon", title: "#12: crash on start", want: []string{"acme/app#12 title"}},
		{name: "TitleKeyword", title: "Fix #12 crash on start", want: []string{"acme/app#12 title"}},
		{name: "TitleMerge", title: "Merge pull request #5 from acme/fix-it", want: []string{"acme/app#5 title"}},
		{name: "TitleCrossRepo", title: "Port the fix from other/lib#7 to us", want: []string{"other/lib#7 title"}},
		{name: "TitleGH", title: "Handle GH-31 properly", want: []string{"acme/app#31 title"}},
		{name: "TitleConventional", title: "fix(#8): nil", want: []string{"acme/app#8 title"}},
		{name: "TitleFalsePriority", title: "Make search our #1 priority"},
		{name: "TitleFalseEdgeCase", title: "Handle #2 edge case in parser"},
		{name: "TitleEntity", title: "Escape &#123; in HTML"},
		{name: "TitleSelf", title: "Release notes (#100)"},
		{name: "BodyCloses", body: "This PR closes #7.", want: []string{"acme/app#7 keyword"}},
		{name: "BodyList", body: "Closes #12, fixes #13", want: []string{"acme/app#12 keyword", "acme/app#13 keyword"}},
		{name: "BodyListOneVerb", body: "Fixes #1, #2 and #3", want: []string{"acme/app#1 keyword", "acme/app#2 keyword", "acme/app#3 keyword"}},
		{
			name: "AllVerbForms",
			body: "close #1 closes #2 closed #3 fix #4 fixes #5 fixed #6 resolve #7 resolves #8 RESOLVED #9 Fixes: #10",
			want: []string{
				"acme/app#1 keyword", "acme/app#2 keyword", "acme/app#3 keyword", "acme/app#4 keyword", "acme/app#5 keyword",
				"acme/app#6 keyword", "acme/app#7 keyword", "acme/app#8 keyword", "acme/app#9 keyword", "acme/app#10 keyword",
			},
		},
		{name: "BodyCrossRepo", body: "Fixes other/lib#7", want: []string{"other/lib#7 keyword"}},
		{name: "BodyURL", body: "Resolves https://github.com/acme/app/issues/55", want: []string{"acme/app#55 keyword"}},
		{name: "BodyGH", body: "fixes GH-8", want: []string{"acme/app#8 keyword"}},
		{name: "BodyMentionOnly", body: "See #9 for context; related to #10."},
		{name: "BodyPrefixWord", body: "prefix #9 and hotfix #10"},
		{name: "BodyComment", body: "<!-- Fixes #1 (template) -->\nNothing here"},
		{name: "BranchFixSlash", branch: "fix/4409-nil-config", want: []string{"acme/app#4409 branch"}},
		{name: "BranchLeadingNumber", branch: "4409-fix-y", want: []string{"acme/app#4409 branch"}},
		{name: "BranchIssue", branch: "issue-4409", want: []string{"acme/app#4409 branch"}},
		{name: "BranchUserNumber", branch: "alice/4409", want: []string{"acme/app#4409 branch"}},
		{name: "BranchGH", branch: "gh-77_cleanup", want: []string{"acme/app#77 branch"}},
		{name: "BranchDependabot", branch: "dependabot/npm_and_yarn/lodash-4.17.21"},
		{name: "BranchRelease", branch: "release/2.1"},
		{name: "BranchDate", branch: "2024-05-cleanup"},
		{name: "BranchVersion", branch: "v2-migration"},
		{name: "BranchJira", branch: "feature/JIRA-123-login"},
		{
			name: "SeveralPatternsMerge", title: "fix(config #5): nil", body: "Fixes #5", branch: "fix/5-nil",
			want: []string{"acme/app#5 keyword,title,branch"},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			recs, sum := collect(t, func(fn func(importer.Record) error) (importer.Summary, error) {
				return importer.GitHub(strings.NewReader(prJSON(tt.title, tt.body, tt.branch)), "", fn)
			})
			if len(recs) != 1 || sum.Skipped != 0 {
				t.Fatalf("got %d records, %d skipped (%v)", len(recs), sum.Skipped, sum.Skips)
			}
			if got := linkStrings(recs[0].Links); !slices.Equal(got, tt.want) {
				t.Fatalf("links = %q, want %q", got, tt.want)
			}
		})
	}
}

const ghIssueList = `[
  {"author":{"login":"bob"},"body":"It crashes.\r\n","closedAt":"2025-02-02T00:00:00Z","createdAt":"2025-02-01T09:30:00Z",
   "labels":[{"id":"L1","name":"Bug","description":"","color":"d73a4a"},{"name":"area/core"}],
   "number":4409,"state":"CLOSED","title":"Nil config crashes start","url":"https://github.com/acme/app/issues/4409"},
  {"author":{"login":"eve"},"body":"","closedAt":null,"createdAt":"2025-02-03T00:00:00Z","labels":[],
   "number":4410,"state":"OPEN","title":"Docs typo","url":"https://github.com/acme/app/issues/4410"}
]`

const ghPRList = `[{"body":"Closes #4409","headRefName":"fix/4409-nil","labels":[],"mergedAt":"2025-02-02T00:00:00Z",
  "number":4411,"state":"MERGED","title":"fix(config #4409): nil check","url":"https://github.com/acme/app/pull/4411",
  "closingIssuesReferences":[{"id":"x","number":4409,"repository":{"id":"r","name":"app","owner":{"id":"o","login":"acme"}},"url":"https://github.com/acme/app/issues/4409"}]}]`

func TestGitHub_IssueList(t *testing.T) {
	recs, sum := collect(t, func(fn func(importer.Record) error) (importer.Summary, error) {
		return importer.GitHub(strings.NewReader(ghIssueList), "", fn)
	})
	if got, want := len(recs), 2; got != want {
		t.Fatalf("records = %d, want %d (skips %v)", got, want, sum.Skips)
	}
	f := recs[0].Fact
	if got, want := f.Content, "#4409 Nil config crashes start\n\nIt crashes."; got != want {
		t.Errorf("content = %q, want %q", got, want)
	}
	if got, want := f.ExternalKey, "github:acme/app#4409"; got != want || recs[0].Key != want {
		t.Errorf("key = %q / %q, want %q", got, recs[0].Key, want)
	}
	if f.Category != importer.CategoryIssue || f.Source != importer.SourceGitHub {
		t.Errorf("category, source = %q, %q", f.Category, f.Source)
	}
	if got, want := f.Tags, []string{"bug", "area/core"}; !slices.Equal(got, want) {
		t.Errorf("tags = %q, want %q", got, want)
	}
	if want := time.Date(2025, 2, 1, 9, 30, 0, 0, time.UTC); !f.CreatedAt.Equal(want) {
		t.Errorf("created = %v, want %v", f.CreatedAt, want)
	}
	if got, want := recs[1].Fact.Content, "#4410 Docs typo"; got != want {
		t.Errorf("empty body: content = %q, want %q", got, want)
	}
	if err := f.Validate(); err != nil {
		t.Errorf("fact does not validate: %v", err)
	}
}

func TestGitHub_PRList(t *testing.T) {
	recs, sum := collect(t, func(fn func(importer.Record) error) (importer.Summary, error) {
		return importer.GitHub(strings.NewReader(ghPRList), "acme/app", fn)
	})
	if len(recs) != 1 || recs[0].Fact.Category != importer.CategoryPR {
		t.Fatalf("records = %+v", recs)
	}
	want := []importer.Link{{
		FromKey: "github:acme/app#4409", ToKey: "github:acme/app#4411", Kind: holomem.EdgeCausal,
		Weight: 1, Origin: holomem.OriginImport, Reason: "closing_refs,keyword,title,branch",
	}}
	if !slices.Equal(recs[0].Links, want) {
		t.Fatalf("links = %+v, want %+v", recs[0].Links, want)
	}
	if got, want := sum.ReasonCounts(), []string{"branch=1", "closing_refs=1", "keyword=1", "title=1"}; !slices.Equal(got, want) {
		t.Errorf("reason counts = %q, want %q", got, want)
	}
	if got := sum.LinksByKind[holomem.EdgeCausal]; got != 1 {
		t.Errorf("causal links = %d, want 1", got)
	}
}

// TestGitHub_PRDates: a PR is dated by its createdAt and, once merged,
// updated at mergedAt (decay counts from there), in gh's and the REST API's
// field names; it never gets the import time when a date is given.
func TestGitHub_PRDates(t *testing.T) {
	day := func(d int) time.Time { return time.Date(2025, 2, d, 0, 0, 0, 0, time.UTC) }
	tests := []struct {
		name             string
		json             string
		created, updated time.Time
	}{
		{"gh merged", `{"number":1,"title":"t","url":"https://github.com/a/b/pull/1","createdAt":"2025-02-01T00:00:00Z","mergedAt":"2025-02-03T00:00:00Z"}`, day(1), day(3)},
		{"gh open", `{"number":1,"title":"t","url":"https://github.com/a/b/pull/1","createdAt":"2025-02-01T00:00:00Z","mergedAt":null,"headRefName":"x"}`, day(1), day(1)},
		{"gh without createdAt", `{"number":1,"title":"t","url":"https://github.com/a/b/pull/1","mergedAt":"2025-02-03T00:00:00Z"}`, day(3), day(3)},
		{"REST pulls", `{"number":1,"title":"t","html_url":"https://github.com/a/b/pull/1","created_at":"2025-02-01T00:00:00Z","merged_at":"2025-02-04T00:00:00Z"}`, day(1), day(4)},
		{"REST issues", `{"number":1,"title":"t","html_url":"https://github.com/a/b/pull/1","created_at":"2025-02-01T00:00:00Z","pull_request":{"merged_at":"2025-02-05T00:00:00Z"}}`, day(1), day(5)},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			recs, _ := collect(t, func(fn func(importer.Record) error) (importer.Summary, error) {
				return importer.GitHub(strings.NewReader(tt.json), "", fn)
			})
			if len(recs) != 1 || recs[0].Fact.Category != importer.CategoryPR {
				t.Fatalf("records = %+v", recs)
			}
			f := recs[0].Fact
			if !f.CreatedAt.Equal(tt.created) || !f.UpdatedAt.Equal(tt.updated) {
				t.Errorf("created, updated = %v, %v; want %v, %v", f.CreatedAt, f.UpdatedAt, tt.created, tt.updated)
			}
		})
	}
}

func TestGitHub_APIPages(t *testing.T) {
	// gh api --paginate prints one array per page, back to back; the
	// issues endpoint marks PRs with a pull_request key.
	pages := `[{"number":1,"title":"Bug","body":"x","html_url":"https://github.com/acme/app/issues/1",
  "url":"https://api.github.com/repos/acme/app/issues/1","created_at":"2025-01-01T00:00:00Z","labels":[{"name":"bug"}]}]
[{"number":2,"title":"Fix bug","body":"Fixes #1","html_url":"https://github.com/acme/app/pull/2",
  "url":"https://api.github.com/repos/acme/app/issues/2","pull_request":{"url":"x"},"created_at":"2025-01-02T00:00:00Z"}]`
	recs, sum := collect(t, func(fn func(importer.Record) error) (importer.Summary, error) {
		return importer.GitHub(strings.NewReader(pages), "", fn)
	})
	if len(recs) != 2 || sum.Skipped != 0 {
		t.Fatalf("got %d records, skips %v", len(recs), sum.Skips)
	}
	if recs[0].Fact.Category != importer.CategoryIssue || recs[1].Fact.Category != importer.CategoryPR {
		t.Fatalf("categories = %q, %q", recs[0].Fact.Category, recs[1].Fact.Category)
	}
	if len(recs[1].Links) != 1 || recs[1].Links[0].FromKey != "github:acme/app#1" {
		t.Fatalf("links = %+v", recs[1].Links)
	}
	if want := time.Date(2025, 1, 2, 0, 0, 0, 0, time.UTC); !recs[1].Fact.CreatedAt.Equal(want) {
		t.Errorf("created = %v, want %v", recs[1].Fact.CreatedAt, want)
	}
}

func TestGitHub_JSONLines(t *testing.T) {
	in := `{"number":1,"title":"a","url":"https://github.com/acme/app/issues/1"}
{"number":2,"title":"b","url":"https://github.com/acme/app/issues/2"}
`
	recs, _ := collect(t, func(fn func(importer.Record) error) (importer.Summary, error) {
		return importer.GitHub(strings.NewReader(in), "", fn)
	})
	if len(recs) != 2 {
		t.Fatalf("got %d records, want 2", len(recs))
	}
}

func TestGitHub_Malformed(t *testing.T) {
	tests := []struct {
		name      string
		in        string
		keys      []string
		skipLines []int
	}{
		{
			name: "BadElementKeepsOthers",
			in: `[
{"number":1,"title":"a","url":"https://github.com/acme/app/issues/1"},
{"number":"two","title":"b"},
{"number":3,"title":"c","url":"https://github.com/acme/app/issues/3"}
]`,
			keys: []string{"github:acme/app#1", "github:acme/app#3"}, skipLines: []int{3},
		},
		{
			name: "Truncated",
			in: `[
{"number":1,"title":"a","url":"https://github.com/acme/app/issues/1"},
{"number":2,"title":"b","url":"https://github.com/ac`,
			keys: []string{"github:acme/app#1"}, skipLines: []int{3},
		},
		{
			name: "NoNumberNoRepo",
			in: `[{"title":"a","url":"https://github.com/acme/app/issues/1"},
{"number":5,"title":"b"},
42, "x",
{"number":6,"title":"c","url":"https://github.com/acme/app/issues/6"}]`,
			keys: []string{"github:acme/app#6"}, skipLines: []int{1, 2, 3, 3},
		},
		{
			name: "GarbageLine",
			in:   "hello\n" + `{"number":6,"title":"c","url":"https://github.com/acme/app/issues/6"}`,
			keys: []string{"github:acme/app#6"}, skipLines: []int{1},
		},
		{name: "Empty", in: "  \n"},
		{name: "EmptyArray", in: "[]"},
		{name: "UnterminatedArray", in: "[", skipLines: []int{1}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			recs, sum := collect(t, func(fn func(importer.Record) error) (importer.Summary, error) {
				return importer.GitHub(strings.NewReader(tt.in), "", fn)
			})
			var keys []string
			for _, r := range recs {
				keys = append(keys, r.Key)
			}
			var lines []int
			for _, s := range sum.Skips {
				lines = append(lines, s.Line)
			}
			if !slices.Equal(keys, tt.keys) || !slices.Equal(lines, tt.skipLines) {
				t.Fatalf("keys %q, skip lines %v (%v); want %q, %v", keys, lines, sum.Skips, tt.keys, tt.skipLines)
			}
			if sum.Records != len(keys) || sum.Skipped != len(lines) {
				t.Fatalf("summary %+v", sum)
			}
		})
	}
}

func TestSkip_String(t *testing.T) {
	for _, tt := range []struct {
		s    importer.Skip
		want string
	}{
		{importer.Skip{Line: 3, Reason: "bad"}, "3: bad"},
		{importer.Skip{Path: "a.md", Reason: "empty note"}, "a.md: empty note"},
		{importer.Skip{Path: "x", Line: 2, Reason: "r"}, "x:2: r"},
		{importer.Skip{Reason: "r"}, "r"},
	} {
		if got := tt.s.String(); got != tt.want {
			t.Errorf("%+v.String() = %q, want %q", tt.s, got, tt.want)
		}
	}
}

func TestGitHub_RepoGiven(t *testing.T) {
	in := `[{"number":3,"title":"no url"}]`
	for _, repo := range []string{"acme/app", "https://github.com/acme/app", "https://github.com/acme/app/"} {
		recs, _ := collect(t, func(fn func(importer.Record) error) (importer.Summary, error) {
			return importer.GitHub(strings.NewReader(in), repo, fn)
		})
		if len(recs) != 1 || recs[0].Key != "github:acme/app#3" {
			t.Errorf("repo %q: records %+v", repo, recs)
		}
	}
}

func TestGitHub_CallbackError(t *testing.T) {
	boom := fmt.Errorf("boom")
	_, err := importer.GitHub(strings.NewReader(ghIssueList), "", func(importer.Record) error { return boom })
	if err == nil || !strings.Contains(err.Error(), "boom") {
		t.Fatalf("err = %v, want boom", err)
	}
}

func TestGitHub_LongBody(t *testing.T) {
	body := strings.Repeat("é", importer.MaxRecordContent)
	recs, _ := collect(t, func(fn func(importer.Record) error) (importer.Summary, error) {
		return importer.GitHub(strings.NewReader(prJSON("t", body, "")), "", fn)
	})
	c := recs[0].Fact.Content
	if len(c) > importer.MaxRecordContent || !strings.HasSuffix(c, "…") {
		t.Fatalf("content is %d bytes, ends %q", len(c), c[len(c)-8:])
	}
	if err := recs[0].Fact.Validate(); err != nil {
		t.Fatal(err)
	}
}

func FuzzGitHub(f *testing.F) {
	f.Add(ghIssueList)
	f.Add(ghPRList)
	f.Add(`[{"number":1,"title":"fix(x #2): y","body":"Closes #3, fixes o/r#4","headRefName":"fix/5-a","url":"https://github.com/a/b/pull/1"}]`)
	f.Add(`[{"number":1` + "\n")
	f.Add(`{"a":"\"}"}{"number":2,"title":"t","url":"https://github.com/a/b/issues/2"}`)
	f.Fuzz(func(t *testing.T, in string) {
		var n int
		sum, err := importer.GitHub(strings.NewReader(in), "", func(r importer.Record) error {
			n++
			if err := r.Fact.Validate(); err != nil {
				t.Fatalf("invalid fact %q: %v", r.Fact.Content, err)
			}
			for _, l := range r.Links {
				if l.FromKey == l.ToKey || l.FromKey == "" || l.Kind != holomem.EdgeCausal {
					t.Fatalf("bad link %+v", l)
				}
			}
			return nil
		})
		if err != nil {
			t.Fatal(err)
		}
		if sum.Records != n {
			t.Fatalf("summary says %d records, got %d", sum.Records, n)
		}
	})
}
