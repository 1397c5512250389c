package importer

import (
	"encoding/json"
	"fmt"
	"io"
	"strconv"
	"strings"
	"time"

	"github.com/holomem/holomem"
	"github.com/holomem/holomem/internal/leaf/lazyre"
)

// MaxRecordContent is the largest content the GitHub and Git importers
// keep for one issue, PR or commit, in bytes; longer text is cut with an
// ellipsis. Long bodies are mostly logs and templates, and a fact should
// stay a fact.
const MaxRecordContent = 8 << 10

// Sources and categories the importers set.
const (
	SourceGitHub   = "import:github"
	SourceGit      = "import:git"
	SourceMarkdown = "import:markdown"

	CategoryIssue  = "issue"
	CategoryPR     = "pr"
	CategoryCommit = "commit"
)

// GitHubKey returns the external key of issue or PR n of repo ("owner/repo"):
// "github:owner/repo#n".
func GitHubKey(repo string, n int) string {
	return "github:" + repo + "#" + strconv.Itoa(n)
}

// ghItem is the union of what `gh issue list --json`, `gh pr list --json`
// and `gh api` (REST issues and pulls) print for one issue or PR.
type ghItem struct {
	Number      int                   `json:"number"`
	Title       string                `json:"title"`
	Body        string                `json:"body"`
	State       string                `json:"state"`
	URL         string                `json:"url"`
	HTMLURL     string                `json:"html_url"`
	RepoURL     string                `json:"repository_url"`
	Labels      []ghLabel             `json:"labels"`
	CreatedAt   ghTime                `json:"createdAt"`
	CreatedAtV3 ghTime                `json:"created_at"`
	HeadRefName string                `json:"headRefName"`
	Head        *struct{ Ref string } `json:"head"`
	MergedAt    *ghTime               `json:"mergedAt"`
	MergedAtV3  *ghTime               `json:"merged_at"`
	PullRequest json.RawMessage       `json:"pull_request"`
	Closing     []ghRef               `json:"closingIssuesReferences"`
}

type ghLabel struct{ Name string }

// UnmarshalJSON accepts {"name": "bug"} and the plain string "bug".
func (l *ghLabel) UnmarshalJSON(b []byte) error {
	if len(b) > 0 && b[0] == '"' {
		return json.Unmarshal(b, &l.Name)
	}
	var v struct{ Name string }
	if err := json.Unmarshal(b, &v); err != nil {
		return err
	}
	l.Name = v.Name
	return nil
}

type ghRef struct {
	Number     int    `json:"number"`
	URL        string `json:"url"`
	Repository struct {
		Name  string `json:"name"`
		Owner struct {
			Login string `json:"login"`
		} `json:"owner"`
		NameWithOwner string `json:"nameWithOwner"`
	} `json:"repository"`
}

// ghTime is a timestamp that decodes null, "" and malformed values as zero
// rather than failing the whole record.
type ghTime struct{ time.Time }

func (t *ghTime) UnmarshalJSON(b []byte) error {
	var s string
	if json.Unmarshal(b, &s) == nil && s != "" {
		if v, err := time.Parse(time.RFC3339, s); err == nil {
			t.Time = v
		}
	}
	return nil
}

var repoURLRE = lazyre.New(`^https?://(?:api\.github\.com/repos|github\.com)/([\w.-]+/[\w.-]+)(?:/|$)`)

// repoFromURL returns "owner/repo" from a GitHub web or API URL.
func repoFromURL(u string) string {
	if m := repoURLRE().FindStringSubmatch(u); m != nil {
		return m[1]
	}
	return ""
}

// dates returns when the item was opened and when its content last
// changed: a merged PR's change landed at mergedAt, so decay counts from
// there. A missing createdAt falls back to mergedAt; both missing leave
// zero (the store then uses the import time, the only date there is).
func (it *ghItem) dates() (created, updated time.Time) {
	created = it.CreatedAt.Time
	if created.IsZero() {
		created = it.CreatedAtV3.Time
	}
	var merged time.Time
	for _, m := range []*ghTime{it.MergedAt, it.MergedAtV3, it.pullMergedAt()} {
		if m != nil && !m.IsZero() {
			merged = m.Time
			break
		}
	}
	if created.IsZero() {
		created = merged
	}
	updated = created
	if merged.After(created) {
		updated = merged
	}
	return created, updated
}

// pullMergedAt reads pull_request.merged_at of the REST issues endpoint.
func (it *ghItem) pullMergedAt() *ghTime {
	if len(it.PullRequest) == 0 {
		return nil
	}
	var pr struct {
		MergedAt *ghTime `json:"merged_at"`
	}
	if json.Unmarshal(it.PullRequest, &pr) != nil {
		return nil
	}
	return pr.MergedAt
}

func (it *ghItem) isPR() bool {
	return len(it.PullRequest) > 0 && string(it.PullRequest) != "null" ||
		it.HeadRefName != "" || it.Head != nil || it.MergedAt != nil || it.MergedAtV3 != nil || it.Closing != nil ||
		strings.Contains(it.HTMLURL, "/pull/") || strings.Contains(it.URL, "/pull/") ||
		strings.Contains(it.URL, "/pulls/")
}

// GitHub reads issues and pull requests as printed by
//
//	gh issue list --json number,title,body,state,labels,url,createdAt,closedAt,author
//	gh pr list --json number,title,body,state,headRefName,url,createdAt,mergedAt,labels,closingIssuesReferences
//	gh api --paginate repos/OWNER/REPO/issues?state=all
//
// that is a JSON array, concatenated arrays or JSON lines of issue objects.
// Each issue or PR becomes a fact (content "#N title\n\nbody", category
// "issue" or "pr", tags from labels, key [GitHubKey], CreatedAt its
// createdAt, UpdatedAt a merged PR's mergedAt). Each PR links
// causally from every issue it fixes (From = issue, To = PR), found by
// closingIssuesReferences, closing keywords in its body, #N or GH-N in its
// title and the issue number in its branch; the Reason of a link lists which.
//
// repo is "owner/repo" (or the repository's URL); when empty it is taken
// from each item's URL. The whole input is read into memory.
// Elements that are not objects, do not decode or have no number or
// repository are skipped with their line; the rest are kept. A truncated
// input keeps the elements before the cut. fn's first error stops the
// import and is returned.
func GitHub(r io.Reader, repo string, fn func(Record) error) (Summary, error) {
	var sum Summary
	data, err := io.ReadAll(r)
	if err != nil {
		return sum, fmt.Errorf("read github export: %w", err)
	}
	repo = strings.Trim(strings.TrimSpace(repo), "/")
	if r := repoFromURL(repo); r != "" {
		repo = r // a repository URL given for owner/repo
	}
	err = jsonValues(data, func(v []byte, line int) error {
		var it ghItem
		if err := json.Unmarshal(v, &it); err != nil {
			sum.skip("", line, "decode issue: %v", err)
			return nil
		}
		rec, why := githubRecord(&it, repo)
		if why != "" {
			sum.skip("", line, "%s", why)
			return nil
		}
		return sum.emit(fn, rec)
	}, func(line int, reason string) { sum.skip("", line, "%s", reason) })
	return sum, err
}

func githubRecord(it *ghItem, repo string) (Record, string) {
	if it.Number <= 0 {
		return Record{}, "issue has no number"
	}
	if repo == "" {
		repo = cmpOr(repoFromURL(it.HTMLURL), repoFromURL(it.URL), repoFromURL(it.RepoURL))
	}
	if repo == "" {
		return Record{}, fmt.Sprintf("issue #%d: no repository in its url; pass the repository", it.Number)
	}
	title := strings.TrimSpace(it.Title)
	body := stripHTMLComments(it.Body)
	content := cleanText(fmt.Sprintf("#%d %s\n\n%s", it.Number, title, body), MaxRecordContent)
	key := GitHubKey(repo, it.Number)
	created, updated := it.dates()
	var tags []string
	for _, l := range it.Labels {
		tags = append(tags, l.Name)
	}
	f := &holomem.Fact{
		Content:     content,
		Category:    CategoryIssue,
		Tags:        cleanTags(tags),
		Source:      SourceGitHub,
		ExternalKey: key,
		CreatedAt:   created,
		UpdatedAt:   updated,
	}
	rec := Record{Key: key, Fact: f}
	if !it.isPR() {
		return rec, ""
	}
	f.Category = CategoryPR

	var ls linkSet
	add := func(refs []issueRef) {
		for _, r := range refs {
			from := GitHubKey(cmpOr(r.Repo, repo), r.Num)
			ls.add(from, key, holomem.EdgeCausal, r.Reason)
		}
	}
	for _, c := range it.Closing {
		ref := issueRef{Num: c.Number, Reason: ReasonClosingRefs}
		ref.Repo = cmpOr(c.Repository.NameWithOwner, repoFromURL(c.URL))
		if ref.Repo == "" && c.Repository.Owner.Login != "" && c.Repository.Name != "" {
			ref.Repo = c.Repository.Owner.Login + "/" + c.Repository.Name
		}
		if ref.Num > 0 {
			add([]issueRef{ref})
		}
	}
	add(keywordRefs(body))
	add(titleRefs(title, ReasonTitle))
	for _, r := range ghRefs(title) {
		r.Reason = ReasonTitle
		add([]issueRef{r})
	}
	branch := it.HeadRefName
	if branch == "" && it.Head != nil {
		branch = it.Head.Ref
	}
	add(branchRefs(branch))
	rec.Links = ls.links
	return rec, ""
}

var htmlCommentRE = lazyre.New(`(?s)<!--.*?-->`)

// stripHTMLComments drops PR-template comments, which are boilerplate.
func stripHTMLComments(s string) string {
	return htmlCommentRE().ReplaceAllString(s, "")
}

func cmpOr(vals ...string) string {
	for _, v := range vals {
		if v != "" {
			return v
		}
	}
	return ""
}
