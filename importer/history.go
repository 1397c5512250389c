package importer

import (
	"regexp"
	"slices"
	"strings"

	"github.com/holomem/holomem"
	"github.com/holomem/holomem/internal/leaf/lazyre"
)

// Reasons of the links a git history makes between its own commits.
const (
	// ReasonRevert: "This reverts commit <sha>" (git revert), from the
	// reverted commit to the revert.
	ReasonRevert = "revert"
	// ReasonFixup: "fixup! <subject>" or "amend! <subject>" (git commit
	// --fixup), from the newest earlier commit with that subject to the fixup.
	ReasonFixup = "fixup"
	// ReasonSquash: "squash! <subject>" (git commit --squash), likewise.
	ReasonSquash = "squash"
	// ReasonCherryPick: "(cherry picked from commit <sha>)" (git
	// cherry-pick -x), from the original to the copy.
	ReasonCherryPick = "cherry_pick"
	// ReasonFollowUp: "follow-up to <sha>" (also "follow up to",
	// "followup to", "follow-up of/for"), from the commit named to the
	// follow-up.
	ReasonFollowUp = "follow_up"
	// ReasonSameIssue: two commits that reference the same issue, from the
	// earlier to the next later one.
	ReasonSameIssue = "same_issue"
)

// MaxSameIssueCommits is how many commits of one issue [Git] chains by
// [ReasonSameIssue], newest first: an issue named by more is a tracking
// issue or a false reference ("step #1"), and a chain through all of its
// commits would say nothing.
const MaxSameIssueCommits = 50

var (
	revertRE     = lazyre.New(`(?i)\bthis reverts commit ([0-9a-f]{7,40})\b`)
	cherryPickRE = lazyre.New(`(?i)\(cherry[ -]picked from commit ([0-9a-f]{7,40})\)`)
	followUpRE   = lazyre.New(`(?i)\bfollow[- ]?up (?:to|of|for|on) (?:commit )?([0-9a-f]{7,40})\b`)
	autosquashRE = lazyre.New(`^(fixup|squash|amend)! +`)
	shaRE        = lazyre.New(`^[0-9a-fA-F]{7,40}$`)
)

// historyLinks finds the links between the commits of one `git log`,
// which lists them newest first: a commit names an older one (a revert
// names what it reverts) before that one is read, so references wait
// until their commit comes; a reference to a commit already read (a
// cherry-pick of a newer commit of another branch) links at once.
type historyLinks struct {
	seen      map[string][]string // first 7 hex digits -> full hashes read so far
	keys      map[string]string   // full hash -> commit key
	pending   map[string][]shaRef // first 7 hex digits -> references not resolved yet
	bySubject map[string][]shaRef // subject -> fixup and squash commits waiting for it
	lastIssue map[string]string   // issue key -> the key of the oldest commit read naming it
	issueN    map[string]int      // issue key -> commits naming it so far
}

// shaRef is a reference from commit key to a hash (or a subject) for reason.
type shaRef struct {
	sha, key, reason string
}

func newHistoryLinks() *historyLinks {
	return &historyLinks{
		seen: map[string][]string{}, keys: map[string]string{}, pending: map[string][]shaRef{},
		bySubject: map[string][]shaRef{}, lastIssue: map[string]string{}, issueN: map[string]int{},
	}
}

// commit reads one commit (newest first) and adds its links to ls: those
// from older commits it names, once they are read, go on the older
// commit's record; ls already holds its issue links.
func (h *historyLinks) commit(ls *linkSet, sha, key, msg string) {
	sha = strings.ToLower(sha)
	// This commit may be the one newer commits named.
	if len(sha) >= 7 {
		p := sha[:7]
		rest := h.pending[p][:0:0]
		for _, r := range h.pending[p] {
			if strings.HasPrefix(sha, r.sha) {
				ls.add(key, r.key, holomem.EdgeCausal, r.reason)
			} else {
				rest = append(rest, r)
			}
		}
		if len(rest) == 0 {
			delete(h.pending, p)
		} else {
			h.pending[p] = rest
		}
		h.seen[p] = append(h.seen[p], sha)
		h.keys[sha] = key
	}
	subject, _, _ := strings.Cut(msg, "\n")
	subject = strings.TrimSpace(subject)
	target, reason := autosquashTarget(subject)
	switch {
	case reason == "":
		// As git's autosquash: the subject named, or one it begins.
		var match []string
		for t := range h.bySubject {
			if strings.HasPrefix(subject, t) {
				match = append(match, t)
			}
		}
		slices.Sort(match)
		for _, t := range match {
			for _, r := range h.bySubject[t] {
				ls.add(key, r.key, holomem.EdgeCausal, r.reason)
			}
			delete(h.bySubject, t)
		}
	case shaRE().MatchString(target):
		// "fixup! <hash>" names the commit itself.
		h.reference(ls, key, strings.ToLower(target), reason)
	case target != "":
		h.bySubject[target] = append(h.bySubject[target], shaRef{key: key, reason: reason})
	}

	refer := func(re *regexp.Regexp, reason string) {
		for _, m := range re.FindAllStringSubmatch(msg, -1) {
			h.reference(ls, key, strings.ToLower(m[1]), reason)
		}
	}
	refer(revertRE(), ReasonRevert)
	refer(cherryPickRE(), ReasonCherryPick)
	refer(followUpRE(), ReasonFollowUp)

	// Commits naming the same issue, chained in time order. The issue
	// links are the ones commitIssueLinks put in ls.
	issues := map[string]bool{}
	for _, l := range ls.links {
		if l.ToKey == key && l.Kind == holomem.EdgeCausal && !strings.HasPrefix(l.FromKey, "git:") && !issues[l.FromKey] {
			issues[l.FromKey] = true
		}
	}
	for _, l := range append([]Link(nil), ls.links...) {
		issue := l.FromKey
		if !issues[issue] {
			continue
		}
		delete(issues, issue) // once per issue
		if h.issueN[issue] >= MaxSameIssueCommits {
			continue
		}
		h.issueN[issue]++
		if later := h.lastIssue[issue]; later != "" {
			ls.add(key, later, holomem.EdgeCausal, ReasonSameIssue)
		}
		h.lastIssue[issue] = key
	}
}

// reference links the commit ref names to the commit key: at once when
// it was read, else when it comes.
func (h *historyLinks) reference(ls *linkSet, key, ref, reason string) {
	if full := h.find(ref); full != "" {
		ls.add(h.keys[full], key, holomem.EdgeCausal, reason)
		return
	}
	h.pending[ref[:7]] = append(h.pending[ref[:7]], shaRef{sha: ref, key: key, reason: reason})
}

// find returns the full hash of a commit read so far that ref (7 to 40
// hex digits) names, or "" when none or more than one does.
func (h *historyLinks) find(ref string) string {
	found := ""
	for _, full := range h.seen[ref[:7]] {
		if strings.HasPrefix(full, ref) {
			if found != "" && found != full {
				return ""
			}
			found = full
		}
	}
	return found
}

// autosquashTarget returns the subject a "fixup! ", "squash! " or
// "amend! " subject names (prefixes repeated, as git's autosquash reads
// them) and the reason, or "", "" for another subject.
func autosquashTarget(subject string) (target, reason string) {
	for {
		m := autosquashRE().FindStringSubmatch(subject)
		if m == nil {
			return strings.TrimSpace(subject), reason
		}
		if reason == "" {
			reason = ReasonFixup
			if m[1] == "squash" {
				reason = ReasonSquash
			}
		}
		subject = subject[len(m[0]):]
	}
}
