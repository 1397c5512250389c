package main

import (
	"bufio"
	"context"
	"fmt"
	"io"
	"os"
	"sort"
	"strings"

	"github.com/spf13/cobra"

	"github.com/holomem/holomem"
	"github.com/holomem/holomem/importer"
	"github.com/holomem/holomem/retrieve"
)

// importBatch is how many facts go into one transaction.
const importBatch = 500

// importReport is what `holomem import` prints.
type importReport struct {
	Kind       string           `json:"kind"`
	Path       string           `json:"path"`
	Records    int              `json:"records"`
	Created    int              `json:"created"`
	Existing   int              `json:"existing"`
	Edges      int              `json:"edges_created"`
	Unresolved int              `json:"links_unresolved"`
	Summary    importer.Summary `json:"summary"`
}

func (a *app) importCmd() *cobra.Command {
	var repo string
	var temporal bool
	var into string
	cmd := &cobra.Command{
		Use:   "import [jsonl|markdown|github|git] PATH",
		Short: "Import facts and edges (idempotent, resumable: run it again after an interruption)",
		Long: `Imports records as facts with external keys, so running an import again skips
what is already there. Kinds:
  jsonl     holomem's own export (default; lossless round trip with 'holomem export')
  markdown  a folder of notes: one fact per note, or per '##' section of long notes
  github    the JSON of 'gh issue list --json ...', 'gh pr list --json ...' or 'gh api' pages;
            causal edges issue -> PR from Closes/Fixes/Resolves #N, #N in titles, branch names
  git       a repository's history; causal edges from issue references in commit messages
PATH '-' reads standard input (jsonl, github).`,
		GroupID: "admin",
		Args:    cobra.RangeArgs(1, 2),
		RunE: func(cmd *cobra.Command, args []string) error {
			kind, path := "jsonl", args[0]
			if len(args) == 2 {
				kind, path = args[0], args[1]
			}
			rep, err := a.runImport(cmd.Context(), kind, path, repo, into, temporal)
			if rep == nil {
				return err
			}
			if outErr := a.out(rep, func(w io.Writer) { printImport(w, rep) }); outErr != nil && err == nil {
				err = outErr
			}
			return err
		},
	}
	cmd.Flags().StringVar(&repo, "repo", "", "github: owner/repo when the JSON has no URLs; git: the GitHub owner/repo that #N in messages names (default: origin's)")
	cmd.Flags().BoolVar(&temporal, "temporal", false, "git: temporal edges between consecutive commits of a file")
	cmd.Flags().StringVar(&into, "into", "", "jsonl: put every fact into this namespace instead of the exported one")
	return cmd
}

func (a *app) runImport(ctx context.Context, kind, path, repo, into string, temporal bool) (*importReport, error) {
	m, err := a.memory(ctx)
	if err != nil {
		return nil, err
	}
	ns := a.ns()
	imp := &importRun{m: m, ns: ns, keys: map[string]int64{}, bar: a.progress(), phase: "import " + kind}
	if kind == "jsonl" {
		imp.keepNamespace = into == ""
		if into != "" {
			imp.ns = into
		}
	}
	var sum importer.Summary
	open := func() (io.ReadCloser, error) {
		if path == "-" {
			return io.NopCloser(a.stdin), nil
		}
		f, err := os.Open(path)
		if err != nil {
			return nil, fmt.Errorf("%w: %v", holomem.ErrInvalid, err)
		}
		return f, nil
	}
	switch kind {
	case "jsonl", "github":
		r, err := open()
		if err != nil {
			return nil, err
		}
		defer r.Close()
		br := bufio.NewReaderSize(r, 1<<20)
		if kind == "jsonl" {
			sum, err = importer.JSONL(br, imp.add)
		} else {
			sum, err = importer.GitHub(br, repo, imp.add)
		}
		if err != nil {
			return nil, fmt.Errorf("import %s %s: %w", kind, path, err)
		}
	case "markdown", "md":
		if sum, err = importer.Markdown(path, imp.add); err != nil {
			return nil, fmt.Errorf("import markdown %s: %w", path, err)
		}
	case "git":
		if sum, err = importer.Git(ctx, path, imp.add, importer.GitOptions{Temporal: temporal, Repo: repo}); err != nil {
			return nil, fmt.Errorf("import git %s: %w", path, err)
		}
	default:
		return nil, usagef("unknown import kind %q: use jsonl, markdown, github or git", kind)
	}
	if err := imp.flush(ctx); err != nil {
		return nil, err
	}
	if kind == "github" {
		if err := imp.commitLinks(ctx); err != nil {
			return nil, err
		}
	}
	if err := imp.link(ctx); err != nil {
		return nil, err
	}
	if kind == "git" && imp.unresolved > 0 {
		sum.Notes = append(sum.Notes, fmt.Sprintf("%d links name issues not in namespace %q yet; importing them (holomem import github) makes these edges", imp.unresolved, ns))
	}
	imp.bar.Done()
	return &importReport{
		Kind: kind, Path: path, Records: sum.Records, Created: imp.created, Existing: imp.existing,
		Edges: imp.edges, Unresolved: imp.unresolved, Summary: sum,
	}, nil
}

// importRun stores an importer's records in batches and then its links.
type importRun struct {
	m             *retrieve.Memory
	ns            string
	keepNamespace bool
	bar           *progressBar
	phase         string

	pending  []importer.Record
	links    []importer.Link
	keys     map[string]int64
	created  int
	existing int

	edges, unresolved int
}

func (r *importRun) add(rec importer.Record) error {
	r.links = append(r.links, rec.Links...)
	if rec.Fact == nil {
		return nil
	}
	if !r.keepNamespace || rec.Fact.Namespace == "" {
		rec.Fact.Namespace = r.ns
	}
	r.pending = append(r.pending, rec)
	if len(r.pending) >= importBatch {
		return r.flush(context.Background())
	}
	return nil
}

func (r *importRun) flush(ctx context.Context) error {
	if len(r.pending) == 0 {
		return nil
	}
	facts := make([]*holomem.Fact, len(r.pending))
	for i, rec := range r.pending {
		facts[i] = rec.Fact
	}
	created, err := r.m.Import(ctx, facts)
	if err != nil {
		return fmt.Errorf("store facts (run the import again to resume): %w", err)
	}
	for i, rec := range r.pending {
		r.keys[rec.Key] = facts[i].ID
		if created[i] {
			r.created++
		} else {
			r.existing++
		}
	}
	r.pending = r.pending[:0]
	r.bar.Update(r.phase, r.created+r.existing, 0)
	return nil
}

// commitLinks adds the links from the issues of this import to commits
// imported before them, which could not link then: the commit messages
// are read again with [importer.CommitLinks]. Bare #N references of a
// commit whose repository is not on GitHub name this import's repository
// when it has exactly one.
func (r *importRun) commitLinks(ctx context.Context) error {
	repos := map[string]bool{}
	for k := range r.keys {
		if rest, ok := strings.CutPrefix(k, "github:"); ok {
			if i := strings.LastIndexByte(rest, '#'); i > 0 {
				repos[rest[:i]] = true
			}
		}
	}
	if len(repos) == 0 {
		return nil
	}
	only := ""
	if len(repos) == 1 {
		for k := range repos {
			only = k
		}
	}
	ns, cat, src := r.ns, importer.CategoryCommit, importer.SourceGit
	var after int64
	for {
		fs, _, err := r.m.Store().FindFacts(ctx, holomem.FactFilter{Namespace: &ns, Category: &cat, Source: &src, AfterID: after, Limit: 1000, IncludeSuperseded: true})
		if err != nil {
			return fmt.Errorf("link earlier commits: %w", err)
		}
		if len(fs) == 0 {
			return nil
		}
		for _, f := range fs {
			after = f.ID
			repo := importer.CommitRepo(f.ExternalKey)
			if !strings.Contains(repo, "/") {
				repo = only
			}
			for _, l := range importer.CommitLinks(repo, f.ExternalKey, f.Content) {
				if _, ok := r.keys[l.FromKey]; ok {
					r.links = append(r.links, l)
				}
			}
		}
	}
}

// resolve maps a link end to a fact id: a key of this import, else an
// external key already in the store.
func (r *importRun) resolve(ctx context.Context, key string) int64 {
	if id, ok := r.keys[key]; ok {
		return id
	}
	if f, err := r.m.Store().FindFactByExternalKey(ctx, r.ns, key); err == nil {
		r.keys[key] = f.ID
		return f.ID
	}
	return 0
}

func (r *importRun) link(ctx context.Context) error {
	// Links with their exported time go first, so a link derived from the
	// same data (a superseded_by field) does not stamp the edge with now.
	sort.SliceStable(r.links, func(i, j int) bool {
		return !r.links[i].CreatedAt.IsZero() && r.links[j].CreatedAt.IsZero()
	})
	var batch []*holomem.Edge
	for _, l := range r.links {
		from, to := r.resolve(ctx, l.FromKey), r.resolve(ctx, l.ToKey)
		if from == 0 || to == 0 || from == to {
			r.unresolved++
			continue
		}
		origin := l.Origin
		if origin == holomem.OriginImport && l.Reason != "" {
			// Per-pattern origins let doctor notice when one pattern stops
			// producing edges (DESIGN.md 6: edge liveness).
			origin += ":" + strings.SplitN(l.Reason, ",", 2)[0]
		}
		weight := l.Weight
		if weight == 0 {
			weight = 1
		}
		batch = append(batch, &holomem.Edge{From: from, To: to, Kind: l.Kind, Weight: weight, Origin: origin, CreatedAt: l.CreatedAt})
	}
	if len(batch) > 0 {
		n, err := r.m.Store().CreateEdges(ctx, batch)
		if err != nil {
			return fmt.Errorf("store edges (run the import again to resume): %w", err)
		}
		r.edges += n
	}
	return nil
}

func printImport(w io.Writer, r *importReport) {
	fmt.Fprintf(w, "imported %s %s: %d records, %d new facts, %d already there, %d edges, %d links unresolved\n",
		r.Kind, r.Path, r.Records, r.Created, r.Existing, r.Edges, r.Unresolved)
	if len(r.Summary.LinksByReason) > 0 {
		keys := make([]string, 0, len(r.Summary.LinksByReason))
		for k := range r.Summary.LinksByReason {
			keys = append(keys, k)
		}
		sort.Strings(keys)
		fmt.Fprint(w, "links by pattern:")
		for _, k := range keys {
			fmt.Fprintf(w, " %s=%d", k, r.Summary.LinksByReason[k])
		}
		fmt.Fprintln(w)
	}
	for _, n := range r.Summary.Notes {
		fmt.Fprintf(w, "note: %s\n", n)
	}
	if r.Summary.Skipped > 0 {
		fmt.Fprintf(w, "skipped %d:\n", r.Summary.Skipped)
		for _, s := range r.Summary.Skips {
			fmt.Fprintf(w, "  %s\n", s)
		}
	}
}
