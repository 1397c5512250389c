package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"sort"

	"github.com/spf13/cobra"

	"github.com/holomem/holomem"
	"github.com/holomem/holomem/importer"
)

func (a *app) importCmd() *cobra.Command {
	var repo string
	var temporal bool
	var into string
	var chunkTokens int
	cmd := &cobra.Command{
		Annotations: createsDB,
		Use:         "import [jsonl|markdown|github|git] PATH",
		Short:       "Import facts and edges (idempotent, resumable: run it again after an interruption)",
		Long: `Imports records as facts with external keys, so running an import again skips
what is already there. Kinds:
  jsonl     holomem's own export (default; lossless round trip with 'holomem export')
  markdown  a document or a folder of them (.md, .markdown, .txt, .html): one fact per chunk
            of at most --chunk-tokens, cut at headings, then paragraphs; each chunk starts
            with its heading path ("docs/GUIDE.md > Configuration > Config file"); a re-import
            updates changed chunks in place and forgets the ones a document no longer has
  github    the JSON of 'gh issue list --json ...', 'gh pr list --json ...' or 'gh api' pages;
            causal edges issue -> PR from Closes/Fixes/Resolves #N, #N in titles, branch names
  git       a repository's history; causal edges from issue references in commit messages
            and from what commits say of each other: reverts, fixup!/squash!, cherry-picks,
            "follow-up to <sha>", and commits that name the same issue (#N)
PATH '-' reads standard input (jsonl, github).`,
		GroupID: "admin",
		Args:    cobra.RangeArgs(1, 2),
		RunE: func(cmd *cobra.Command, args []string) error {
			kind, path := "jsonl", args[0]
			if len(args) == 2 {
				kind, path = args[0], args[1]
			}
			rep, err := a.runImport(cmd.Context(), importer.Options{Kind: kind, Path: path, Repo: repo, Into: into, Temporal: temporal, ChunkTokens: chunkTokens})
			if rep == nil {
				return err
			}
			if outErr := a.out(rep, func(w io.Writer) { printImport(w, rep) }); outErr != nil && err == nil {
				err = outErr
			}
			if err == nil && rep.Records == 0 && rep.Summary.Skipped > 0 {
				// Not one record could be read (a web page saved as
				// issues.json, a truncated export): the web UI's rule.
				err = fmt.Errorf("%w: no record of %s could be read as %s; the skipped lines above say why", holomem.ErrInvalid, path, importKindHelp(kind))
			}
			return err
		},
	}
	cmd.Flags().StringVar(&repo, "repo", "", "github: owner/repo when the JSON has no URLs; git: the GitHub owner/repo that #N in messages names (default: origin's)")
	cmd.Flags().BoolVar(&temporal, "temporal", false, "git: temporal edges between consecutive commits of a file")
	cmd.Flags().IntVar(&chunkTokens, "chunk-tokens", importer.DefaultChunkTokens, fmt.Sprintf("markdown: the most estimated tokens (characters/4) one chunk holds, heading path included (%d-%d)", importer.MinChunkTokens, importer.MaxChunkTokens))
	cmd.Flags().StringVar(&into, "into", "", "jsonl: put every fact into this namespace instead of the exported one")
	return cmd
}

// runImport runs importer.Run into the command line's memory and namespace.
func (a *app) runImport(ctx context.Context, o importer.Options) (*importer.Report, error) {
	m, err := a.memory(ctx)
	if err != nil {
		return nil, err
	}
	bar := a.progress()
	o.Stdin, o.Namespace, o.Progress = a.stdin, a.ns(), bar.Update
	rep, err := importer.Run(ctx, m, m.Store(), o)
	bar.Done()
	if errors.Is(err, importer.ErrUnknownKind) {
		return nil, usagef("%v", err)
	}
	return rep, err
}

func printImport(w io.Writer, r *importer.Report) {
	fmt.Fprintf(w, "imported %s %s: %d records, %d new facts, %d already there, %d edges, %d links unresolved\n",
		r.Kind, r.Path, r.Records, r.Created, r.Existing, r.Edges, r.Unresolved)
	if r.Updated > 0 || r.Removed > 0 {
		fmt.Fprintf(w, "chunks changed: %d updated in place, %d no longer in their document removed\n", r.Updated, r.Removed)
	}
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
