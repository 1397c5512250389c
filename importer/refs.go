package importer

import (
	"strconv"
	"strings"

	"github.com/holomem/holomem/internal/leaf/lazyre"
)

// issueRef is a reference to issue Num of Repo ("" = the repository being
// imported) found by the pattern Reason.
type issueRef struct {
	Repo   string
	Num    int
	Reason string
}

// refPattern is one reference: owner/repo#N, #N, GH-N or a GitHub issue or
// pull URL. The keyword pattern repeats it for lists ("Fixes #1, #2").
const refPattern = `(?:[\w.-]+/[\w.-]+#\d+|#\d+|GH-\d+|https?://github\.com/[\w.-]+/[\w.-]+/(?:issues|pull)/\d+)\b`

var (
	// keywordRE finds GitHub's closing keywords in every verb form, with an
	// optional colon, followed by one reference or a list of them.
	keywordRE = lazyre.New(`(?i)\b(?:close[sd]?|fix(?:e[sd])?|resolve[sd]?)\b:?[ \t]+` +
		refPattern + `(?:[ \t]*(?:,|\band\b|&)[ \t]*` + refPattern + `)*`)
	// oneRefRE splits a keyword match into its references.
	oneRefRE = lazyre.New(`(?i)([\w.-]+/[\w.-]+)#(\d+)\b|#(\d+)\b|GH-(\d+)\b|https?://github\.com/([\w.-]+/[\w.-]+)/(?:issues|pull)/(\d+)\b`)
	// hashRE finds #N (or owner/repo#N) not glued to a word or an HTML
	// entity (&#123;); the caller checks its context.
	hashRE = lazyre.New(`(?:^|[^\w&/#])(?:([\w.-]+/[\w.-]+))?#(\d+)\b`)
	// ghRE finds GH-N.
	ghRE = lazyre.New(`(?i)\bGH-(\d+)\b`)
	// wordBeforeRE is the word just before a #N.
	wordBeforeRE = lazyre.New(`([A-Za-z]+)\W*$`)
	// branchKeywordRE finds issue-4409, gh-12, fix/4409, bug_7 in a branch name.
	branchKeywordRE = lazyre.New(`(?i)(?:^|[/_-])(?:issues?|gh|bugs?|fix(?:es)?|bugfix|hotfix|feat|feature)[-_/]?(\d+)(?:[-_/]|$)`)
	// branchNumberRE finds a number that starts a branch path segment:
	// 4409-fix-y, fix/4409-x, user/4409.
	branchNumberRE = lazyre.New(`(?:^|/)(\d+)(?:([-_/])(\d)?|$)`)
)

// refWords are the words that make a following bare #N an issue reference
// in a title or message ("fix #12 crash", "see #12", "Merge pull request
// #12"). Anything else followed by a word ("our #1 priority") is not.
var refWords = map[string]bool{
	"fix": true, "fixes": true, "fixed": true, "close": true, "closes": true, "closed": true,
	"resolve": true, "resolves": true, "resolved": true, "issue": true, "issues": true,
	"bug": true, "for": true, "re": true, "ref": true, "refs": true, "see": true,
	"request": true, "pr": true, "pull": true, "addresses": true, "address": true,
	"part": true, "of": true, "per": true, "to": true, "in": true, "from": true,
}

func atoiRef(s string) int {
	n, err := strconv.Atoi(s)
	if err != nil || n <= 0 {
		return 0
	}
	return n
}

// keywordRefs returns the references after closing keywords in s.
func keywordRefs(s string) []issueRef {
	if !mayHaveKeyword(s) {
		return nil
	}
	var out []issueRef
	for _, m := range keywordRE().FindAllString(s, -1) {
		for _, r := range oneRefRE().FindAllStringSubmatch(m, -1) {
			ref := issueRef{Reason: ReasonKeyword}
			switch {
			case r[2] != "":
				ref.Repo, ref.Num = r[1], atoiRef(r[2])
			case r[3] != "":
				ref.Num = atoiRef(r[3])
			case r[4] != "":
				ref.Num = atoiRef(r[4])
			default:
				ref.Repo, ref.Num = r[5], atoiRef(r[6])
			}
			if ref.Num > 0 {
				out = append(out, ref)
			}
		}
	}
	return out
}

// mayHaveKeyword is a cheap test that lets most texts skip keywordRE:
// every keyword starts with "clos", "fix" or "resol" in some case.
func mayHaveKeyword(s string) bool {
	for i := 0; i+3 <= len(s); i++ {
		switch s[i] | 0x20 {
		case 'c', 'f', 'r':
			w := strings.ToLower(s[i:min(i+5, len(s))])
			if strings.HasPrefix(w, "clos") || strings.HasPrefix(w, "fix") || strings.HasPrefix(w, "resol") {
				return true
			}
		}
	}
	return false
}

// titleRefs returns the #N references of a title or message that read as
// issue references, with the given reason. A #N counts when it is inside
// parentheses or brackets ("fix(module #4409):", "(#12)"), when nothing but
// punctuation follows it up to the end or a colon ("... #12", "#12: crash"),
// or when a reference word precedes it ("fix #12 crash", "see #12"). A #N
// followed by a plain word ("our #1 priority") does not.
func titleRefs(s, reason string) []issueRef {
	var out []issueRef
	for _, loc := range hashRE().FindAllStringSubmatchIndex(s, -1) {
		num := atoiRef(s[loc[4]:loc[5]])
		if num == 0 {
			continue
		}
		start := loc[0]
		if loc[2] >= 0 {
			start = loc[2]
		} else if start < len(s) && s[start] != '#' {
			start++
		}
		before, after := s[:start], s[loc[1]:]
		if !bareRefContext(before, after) {
			continue
		}
		ref := issueRef{Num: num, Reason: reason}
		if loc[2] >= 0 {
			ref.Repo = s[loc[2]:loc[3]]
		}
		out = append(out, ref)
	}
	return out
}

func bareRefContext(before, after string) bool {
	depth := 0
	for _, c := range before {
		switch c {
		case '(', '[':
			depth++
		case ')', ']':
			depth--
		}
	}
	if depth > 0 {
		return true
	}
	rest := strings.TrimLeft(after, " \t")
	if rest == "" || strings.IndexAny(rest[:1], ":,;.!?)]\n") == 0 {
		return true
	}
	if m := wordBeforeRE().FindStringSubmatch(before); m != nil && refWords[strings.ToLower(m[1])] {
		return true
	}
	return false
}

var issueURLRE = lazyre.New(`https?://github\.com/([\w.-]+/[\w.-]+)/(?:issues|pull)/(\d+)\b`)

// urlRefs returns the GitHub issue and pull URLs in s, with the given reason.
func urlRefs(s, reason string) []issueRef {
	var out []issueRef
	for _, m := range issueURLRE().FindAllStringSubmatch(s, -1) {
		if n := atoiRef(m[2]); n > 0 {
			out = append(out, issueRef{Repo: m[1], Num: n, Reason: reason})
		}
	}
	return out
}

// ghRefs returns the GH-N references in s.
func ghRefs(s string) []issueRef {
	var out []issueRef
	for _, m := range ghRE().FindAllStringSubmatch(s, -1) {
		if n := atoiRef(m[1]); n > 0 {
			out = append(out, issueRef{Num: n, Reason: ReasonGHRef})
		}
	}
	return out
}

// branchRefs returns the issue number a branch name carries: after an
// issue-like word (issue-4409, fix/4409-x, gh-12) or at the start of a path
// segment (4409-fix-y, user/4409). Bot and release branches
// (dependabot/, renovate/, release/, v1.2) and date-like numbers
// (2024-05-...) are not references.
func branchRefs(branch string) []issueRef {
	b := strings.ToLower(strings.TrimSpace(branch))
	for _, p := range []string{"dependabot/", "renovate/", "release/", "releases/", "revert-", "gh-pages"} {
		if strings.HasPrefix(b, p) {
			return nil
		}
	}
	var out []issueRef
	seen := map[int]bool{}
	add := func(n int) {
		if n > 0 && !seen[n] {
			seen[n] = true
			out = append(out, issueRef{Num: n, Reason: ReasonBranch})
		}
	}
	for _, m := range branchKeywordRE().FindAllStringSubmatch(b, -1) {
		add(atoiRef(m[1]))
	}
	for _, m := range branchNumberRE().FindAllStringSubmatch(b, -1) {
		if m[2] == "-" && m[3] != "" {
			continue // 2024-05-cleanup is a date
		}
		add(atoiRef(m[1]))
	}
	return out
}
