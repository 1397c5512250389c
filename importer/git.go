package importer

import (
	"bufio"
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"os/exec"
	"path"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	"github.com/holomem/holomem"
	"github.com/holomem/holomem/internal/leaf/lazyre"
)

// GitOptions tune [Git]. The zero value imports all of HEAD's history
// without temporal links.
type GitOptions struct {
	// Name is the repository name in commit keys ("git:<name>@<sha>").
	// Empty means "owner/repo" when origin is on GitHub, else the base name
	// of the work tree.
	Name string
	// Rev is the revision whose history is read; empty means HEAD.
	Rev string
	// MaxCount limits the number of commits read (newest first); 0 means all.
	MaxCount int
	// Temporal adds a temporal link from each commit to the next later
	// commit that touched the same file.
	Temporal bool
	// MaxFilesPerCommit skips temporal links for commits touching more
	// files than this (vendoring, mass renames), which would otherwise
	// link everything to everything; 0 means DefaultMaxFilesPerCommit.
	MaxFilesPerCommit int
	// GitPath is the git binary; empty means "git" on PATH.
	GitPath string
	// Repo is the GitHub repository ("owner/repo" or its URL) that bare
	// #N references in messages name, so they link to the facts of
	// [GitHub]'s import. Empty means origin's repository, following origins
	// that are local paths (a clone of a clone) to a GitHub remote.
	Repo string
}

// maxOriginHops bounds how many local-path origins [Git] follows.
const maxOriginHops = 5

// DefaultMaxFilesPerCommit is [GitOptions.MaxFilesPerCommit]'s default.
const DefaultMaxFilesPerCommit = 50

// GitKey returns the external key of a commit: "git:<name>@<sha>".
func GitKey(name, sha string) string { return "git:" + name + "@" + sha }

// Git record and field separators (ASCII RS and US): they do not occur in
// commit messages written by people. A message that does contain one
// breaks only its own commit, which is skipped.
const (
	gitRS = "\x1e"
	gitUS = "\x1f"
)

var remoteGitHubRE = lazyre.New(`github\.com[:/]([\w.-]+/[\w.-]+?)(?:\.git)?/?$`)

// Git imports the history of the repository at repoPath by running
// `git log`. Each commit becomes a fact (content subject + body, category
// "commit", key [GitKey], CreatedAt its author date). Issue references in
// messages become causal links to the commit (From = the issue, To = the
// commit): closing keywords ("Fixes #12"), bare #N references read as in
// PR titles, GH-N, owner/repo#N and issue or pull URLs. The issue's key is
// [GitHubKey] when origin is a GitHub remote, else "issue:#N". Commits are
// linked to the earlier commits they revert, fix up, squash into,
// cherry-pick or follow up, and to the next commit naming the same issue
// (see the package documentation). With opts.Temporal, commits touching
// the same file are linked in time order.
//
// A path that is not a git repository gives an error wrapping
// holomem.ErrInvalid; a repository without commits imports nothing. The
// command stops when ctx is done.
func Git(ctx context.Context, repoPath string, fn func(Record) error, opts GitOptions) (Summary, error) {
	var sum Summary
	gitBin := cmpOr(opts.GitPath, "git")
	run := func(args ...string) (string, error) {
		cmd := exec.CommandContext(ctx, gitBin, append([]string{"-C", repoPath}, args...)...)
		var stderr bytes.Buffer
		cmd.Stderr = &stderr
		out, err := cmd.Output()
		if err != nil {
			return "", fmt.Errorf("git %s: %w: %s", args[0], err, strings.TrimSpace(stderr.String()))
		}
		return strings.TrimSpace(string(out)), nil
	}
	top, err := run("rev-parse", "--show-toplevel")
	if err != nil {
		if ctx.Err() != nil {
			return sum, ctx.Err()
		}
		var exitErr *exec.ExitError
		if errors.As(err, &exitErr) {
			return sum, fmt.Errorf("%w: %s is not a git repository (%v)", holomem.ErrInvalid, repoPath, err)
		}
		return sum, fmt.Errorf("git import: %w", err)
	}
	rev := cmpOr(opts.Rev, "HEAD")
	if _, err := run("rev-parse", "--verify", "--quiet", rev+"^{commit}"); err != nil {
		if opts.Rev == "" {
			return sum, nil // no commits yet
		}
		return sum, fmt.Errorf("%w: git import: no commit %q in %s", holomem.ErrInvalid, rev, repoPath)
	}
	ghRepo := strings.Trim(strings.TrimSpace(opts.Repo), "/")
	if r := repoFromURL(ghRepo); r != "" {
		ghRepo = r
	}
	if ghRepo != "" && strings.Count(ghRepo, "/") != 1 {
		return sum, fmt.Errorf("%w: git import: repository %q is not owner/name", holomem.ErrInvalid, opts.Repo)
	}
	origin := ""
	if ghRepo == "" {
		ghRepo, origin = originRepo(ctx, gitBin, top)
	}
	name := cmpOr(opts.Name, ghRepo, path.Base(strings.ReplaceAll(top, "\\", "/")))

	args := []string{"-C", repoPath, "-c", "core.quotepath=off", "log", "--no-color", "--no-renames",
		"--format=" + gitRS + "%H" + gitUS + "%aI" + gitUS + "%an" + gitUS + "%B" + gitUS}
	if opts.Temporal {
		args = append(args, "--name-only") // diffing every commit costs git most of its time
	}
	if opts.MaxCount > 0 {
		args = append(args, "--max-count="+strconv.Itoa(opts.MaxCount))
	}
	args = append(args, rev, "--")
	cmd := exec.CommandContext(ctx, gitBin, args...)
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		return sum, fmt.Errorf("git log: %w", err)
	}
	if err := cmd.Start(); err != nil {
		return sum, fmt.Errorf("git log: %w", err)
	}
	p := gitParser{name: name, ghRepo: ghRepo, opts: opts, lastByFile: map[string]string{}, history: newHistoryLinks()}
	perr := p.parse(stdout, &sum, fn)
	if perr != nil {
		_ = cmd.Process.Kill()
		_, _ = io.Copy(io.Discard, stdout)
	}
	werr := cmd.Wait()
	if perr != nil {
		return sum, perr
	}
	if ghRepo == "" && p.issueRefs > 0 {
		where := "there is no origin remote"
		if origin != "" {
			where = fmt.Sprintf("origin %s is not on GitHub", origin)
		}
		sum.note("%d commit messages reference issues (#N), but %s: the references are keyed issue:#N and link to no imported issue; pass the repository (--repo owner/name)", p.issueRefs, where)
	}
	if ctx.Err() != nil {
		return sum, ctx.Err()
	}
	if werr != nil {
		return sum, fmt.Errorf("git log: %w: %s", werr, strings.TrimSpace(stderr.String()))
	}
	return sum, nil
}

// gitParser turns `git log` output into records.
type gitParser struct {
	name, ghRepo string
	opts         GitOptions
	lastByFile   map[string]string // file -> key of the newest commit seen touching it
	n            int
	issueRefs    int // commits that reference an issue
	history      *historyLinks
}

// originRepo returns the GitHub "owner/repo" of the origin remote of the
// repository at dir, following origins that are local paths (a clone of a
// clone) up to maxOriginHops, and the first origin it read ("" if none).
func originRepo(ctx context.Context, gitBin, dir string) (repo, first string) {
	seen := map[string]bool{}
	for range maxOriginHops {
		if seen[dir] {
			return "", first
		}
		seen[dir] = true
		out, err := exec.CommandContext(ctx, gitBin, "-C", dir, "remote", "get-url", "origin").Output()
		if err != nil {
			return "", first
		}
		u := strings.TrimSpace(string(out))
		if first == "" {
			first = u
		}
		if m := remoteGitHubRE().FindStringSubmatch(u); m != nil {
			return m[1], first
		}
		next, ok := localRemote(dir, u)
		if !ok {
			return "", first
		}
		dir = next
	}
	return "", first
}

// localRemote returns the directory a remote URL names when it is a local
// path ("/srv/app.git", "../app", "file:///srv/app.git").
func localRemote(dir, u string) (string, bool) {
	if p, ok := strings.CutPrefix(u, "file://"); ok {
		return p, true
	}
	if strings.Contains(u, "://") || (strings.Contains(u, ":") && !filepath.IsAbs(u)) {
		return "", false // a network URL or scp-like user@host:path
	}
	if !filepath.IsAbs(u) {
		u = filepath.Join(dir, u)
	}
	return u, true
}

func splitRS(data []byte, atEOF bool) (int, []byte, error) {
	if i := bytes.IndexByte(data, gitRS[0]); i >= 0 {
		return i + 1, data[:i], nil
	}
	if atEOF && len(data) > 0 {
		return len(data), data, nil
	}
	return 0, nil, nil
}

// parse reads commits separated by RS from r.
func (p *gitParser) parse(r io.Reader, sum *Summary, fn func(Record) error) error {
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 0, 64<<10), 64<<20)
	sc.Split(splitRS)
	for sc.Scan() {
		chunk := sc.Text()
		if strings.TrimSpace(chunk) == "" {
			continue
		}
		p.n++
		rec, why := p.record(chunk)
		if why != "" {
			sum.skip("", p.n, "commit %d: %s", p.n, why)
			continue
		}
		if err := sum.emit(fn, rec); err != nil {
			return err
		}
	}
	if err := sc.Err(); err != nil {
		return fmt.Errorf("read git log: %w", err)
	}
	return nil
}

// issueKey keys issue n of repo, or of ghRepo when the reference names
// no repository.
func issueKey(ghRepo, repo string, n int) string {
	if repo == "" {
		repo = ghRepo
	}
	if repo == "" {
		return "issue:#" + strconv.Itoa(n)
	}
	return GitHubKey(repo, n)
}

// CommitLinks returns the causal links [Git] makes for a commit message:
// from each issue it references to the commit (key commitKey). ghRepo is
// the GitHub repository ("owner/repo") that bare #N references name; empty
// keys them "issue:#N". An import of issues uses it to link commits
// imported before them.
func CommitLinks(ghRepo, commitKey, msg string) []Link {
	var ls linkSet
	commitIssueLinks(&ls, ghRepo, commitKey, msg)
	return ls.links
}

func commitIssueLinks(ls *linkSet, ghRepo, key, msg string) {
	add := func(refs []issueRef) {
		for _, r := range refs {
			ls.add(issueKey(ghRepo, r.Repo, r.Num), key, holomem.EdgeCausal, r.Reason)
		}
	}
	add(keywordRefs(msg))
	add(ghRefs(msg))
	for _, line := range strings.Split(msg, "\n") {
		add(titleRefs(line, ReasonRef))
	}
	add(urlRefs(msg, ReasonRef))
}

// CommitRepo returns the name a commit key ([GitKey]) holds: "owner/repo"
// for a repository on GitHub, else the work tree's base name.
func CommitRepo(key string) string {
	rest, ok := strings.CutPrefix(key, "git:")
	if !ok {
		return ""
	}
	if i := strings.LastIndexByte(rest, '@'); i >= 0 {
		return rest[:i]
	}
	return ""
}

// record parses "sha US date US author US message US \n files".
func (p *gitParser) record(chunk string) (Record, string) {
	parts := strings.Split(chunk, gitUS)
	if len(parts) != 5 {
		return Record{}, "malformed log entry (a separator byte in the message?)"
	}
	sha, date, msg, files := strings.TrimSpace(parts[0]), parts[1], parts[3], parts[4]
	if len(sha) < 7 || strings.Trim(sha, "0123456789abcdefABCDEF") != "" {
		// Git prints hex; anything else is not a commit and must not reach
		// a key or a "(no message)" fact as raw bytes.
		return Record{}, fmt.Sprintf("no commit hash (%q)", truncateHash(sha))
	}
	when, err := time.Parse(time.RFC3339, strings.TrimSpace(date))
	if err != nil {
		return Record{}, fmt.Sprintf("commit %s: bad author date %q", sha, date)
	}
	msg = cleanText(msg, MaxRecordContent)
	if msg == "" {
		msg = "(no message) " + sha
	}
	key := GitKey(p.name, sha)
	rec := Record{Key: key, Fact: &holomem.Fact{
		Content: msg, Category: CategoryCommit, Source: SourceGit, ExternalKey: key,
		CreatedAt: when, UpdatedAt: when,
	}}

	var ls linkSet
	commitIssueLinks(&ls, p.ghRepo, key, msg)
	if len(ls.links) > 0 {
		p.issueRefs++
	}
	if p.history == nil {
		p.history = newHistoryLinks()
	}
	p.history.commit(&ls, sha, key, msg)

	if p.opts.Temporal {
		var touched []string
		for _, f := range strings.Split(files, "\n") {
			if f = strings.TrimSpace(f); f != "" {
				touched = append(touched, f)
			}
		}
		limit := p.opts.MaxFilesPerCommit
		if limit <= 0 {
			limit = DefaultMaxFilesPerCommit
		}
		// git log walks newest first: the commit seen last for a file is
		// the next later change to it.
		for _, f := range touched {
			if len(touched) <= limit {
				if later, ok := p.lastByFile[f]; ok {
					ls.add(key, later, holomem.EdgeTemporal, ReasonSameFile)
				}
			}
			p.lastByFile[f] = key
		}
	}
	rec.Links = ls.links
	return rec, ""
}

// truncateHash keeps a reported bad hash short and valid UTF-8.
func truncateHash(s string) string {
	if len(s) > 40 {
		s = s[:40]
	}
	return strings.ToValidUTF8(s, "?")
}
