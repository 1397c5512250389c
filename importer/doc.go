// Package importer turns external records into holomem facts and links:
// holomem's own JSONL export ([JSONL], written by [JSONLWriter]), documents
// cut into bounded chunks (Markdown, plain text and HTML: [Markdown]), GitHub issues and pull requests as the gh
// CLI prints them ([GitHub]) and git history ([Git]).
//
// # Model
//
// Importers parse; they do not store. Each streams [Record] values to a
// callback: a fact ready for holomem.Store.CreateFact and the [Link]s that
// record makes, with both ends named by keys rather than ids, because ids
// exist only once facts are stored. A caller:
//
//  1. stores each Record's Fact (in batches with CreateFacts) and remembers
//     Key -> the id the store gave it (or the existing fact's id: external
//     keys and content make re-imports idempotent);
//  2. after the stream ends, resolves each link's FromKey and ToKey through
//     that map, then through Store.FindFactByExternalKey (a commit's issue
//     imported earlier from GitHub), and creates the edges; supersedes
//     links go through Store.Supersede. Links whose ends cannot be
//     resolved are counted, not errors: the issue may never be imported.
//
// Links are resolved after the stream because a PR may reference an issue
// listed after it. Each importer returns a [Summary]: facts and links
// emitted, links per kind and per pattern ([Link.Reason]), and the input
// it skipped with the line (or path) and reason. Malformed input is skipped
// and reported; the good records around it are kept. An error is returned
// only when the import cannot go on: the input cannot be read, the callback
// failed, or the input is of a kind this version cannot read.
//
// # Causal links from GitHub and git
//
// A causal link goes from an issue to what fixed it (Kind
// holomem.EdgeCausal, From = issue, To = PR or commit). The patterns, each
// named in Link.Reason so edge liveness can be watched per pattern:
//
//   - closing_refs: a PR's closingIssuesReferences.
//   - keyword: close, closes, closed, fix, fixes, fixed, resolve, resolves,
//     resolved (any case, optional colon) followed by #N, owner/repo#N,
//     GH-N or an issue URL, or a list of them ("Closes #12, fixes #13",
//     "Fixes #1, #2 and #3"). GitHub itself only honours the first of a
//     list; we take all, as a person reading it would.
//   - title: #N in a PR title read as a reference (below), or GH-N.
//   - branch: the issue number in a PR's branch: fix/4409-x, 4409-fix-y,
//     issue-4409, gh-12, user/4409.
//   - ref and gh_ref: #N and GH-N in commit messages. A squash-merge
//     subject "Add x (#123)" names the PR, which gives PR -> commit: also
//     cause and effect.
//
// A history also speaks of itself, and [Git] links its commits (From =
// the earlier commit, To = the one that answers it), each pattern named in
// Link.Reason like the ones above:
//
//   - revert: "This reverts commit <sha>" (git revert).
//   - fixup and squash: a subject "fixup! <subject>", "amend! <subject>"
//     or "squash! <subject>" (git commit --fixup/--squash) links the
//     newest earlier commit whose subject is, or begins with, that
//     subject, as git's autosquash reads it ("fixup! <sha>" names the
//     commit itself).
//   - cherry_pick: "(cherry picked from commit <sha>)" (cherry-pick -x).
//   - follow_up: "follow-up to <sha>" (also "follow up", "followup";
//     "to", "of", "for" or "on").
//   - same_issue: commits that reference the same issue, each to the next
//     later one, at most [MaxSameIssueCommits] per issue. They are causal,
//     not temporal, because each step of the work on an issue exists
//     because the one before did not finish it, and so `chain` can walk a
//     history imported without its forge.
//
// A hash is 7 to 40 hex digits and must name a commit of the imported
// history; one that names none (or more than one) links nothing.
//
// A bare #N in a title or message counts when it is inside parentheses or
// brackets ("fix(module #4409): ..."), when only punctuation follows it
// ("... #12", "#12: crash"), or when a reference word comes before it
// ("fix #12 crash", "see #12", "Merge pull request #12 from ..."). So
// "make search our #1 priority" and "handle #2 edge case" are not
// references; "step #1" at the end of a title is (a known false positive).
// A bare #N in a PR body without a closing keyword is a mention, not a
// fix, and makes no link. Branch names of bots and releases
// (dependabot/, renovate/, release/) and date-like numbers (2024-05-x) are
// not references. A PR's reference to itself is dropped.
//
// # Caveats
//
// Content is cut at [MaxRecordContent] for issues, PRs and commits, and
// HTML comments (PR templates) are dropped from bodies. Fact.ID in a JSONL
// record is zero (OldID keeps the exported id); since Fact.Normalize gives
// a fact with ID 0 and trust 0 the default trust, an exported trust of
// exactly 0 comes back as the default. The git importer relies on ASCII
// RS/US bytes not occurring in commit messages.
//
// Importers hold no state between calls and are safe for concurrent use;
// a [JSONLWriter] is not.
package importer
