package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"strings"

	"github.com/spf13/cobra"

	"github.com/holomem/holomem"
	"github.com/holomem/holomem/anchor"
)

// readContent joins args, or reads stdin when the only argument is "-".
func (a *app) readContent(args []string) (string, error) {
	if len(args) == 1 && args[0] == "-" {
		b, err := io.ReadAll(io.LimitReader(a.stdin, holomem.MaxContentBytes+1))
		if err != nil {
			return "", fmt.Errorf("read stdin: %w", err)
		}
		return strings.TrimRight(string(b), "\n"), nil
	}
	return strings.Join(args, " "), nil
}

func (a *app) addCmd() *cobra.Command {
	var f holomem.Fact
	var tags []string
	var anchorFile string
	cmd := &cobra.Command{
		Annotations: createsDB,
		Use:         "add CONTENT... | add -", Short: "Remember a fact (reports near-duplicates and contradictions)", GroupID: "facts",
		Args: cobra.MinimumNArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			content, err := a.readContent(args)
			if err != nil {
				return err
			}
			m, err := a.memory(cmd.Context())
			if err != nil {
				return err
			}
			f.Content, f.Namespace, f.Tags = content, a.ns(), tags
			if anchorFile != "" {
				if f.Anchor, err = newAnchor(cmd.Context(), m.Anchors().Root(), anchorFile); err != nil {
					return err
				}
			}
			res, err := m.Remember(cmd.Context(), &f)
			if err != nil {
				return err
			}
			return a.out(res, func(w io.Writer) {
				if res.Created {
					fmt.Fprintf(w, "remembered #%d\n", res.Fact.ID)
				} else {
					fmt.Fprintf(w, "already known as #%d\n", res.Fact.ID)
				}
				for _, h := range res.NearDuplicates {
					fmt.Fprintf(w, "  near-duplicate #%d (%.2f): %s\n", h.Fact.ID, h.Score, oneLine(h.Fact.Content, 80))
				}
				for _, h := range res.Contradictions {
					fmt.Fprintf(w, "  may contradict #%d: %s\n    (holomem supersede %d %d to replace it)\n", h.Fact.ID, oneLine(h.Fact.Content, 80), h.Fact.ID, res.Fact.ID)
				}
				for _, h := range res.Refinements {
					fmt.Fprintf(w, "  adds detail to #%d: %s\n    (holomem supersede %d %d if the new fact replaces it)\n", h.Fact.ID, oneLine(h.Fact.Content, 80), h.Fact.ID, res.Fact.ID)
				}
				for _, r := range res.Risks {
					fmt.Fprintf(w, "  flagged: %s (stored; shown to agents as quoted data)\n", r)
				}
			})
		},
	}
	cmd.Flags().StringVarP(&f.Category, "category", "c", "", "category (user_pref, project, tool, general, ...)")
	cmd.Flags().StringSliceVarP(&tags, "tags", "t", nil, "comma-separated tags")
	cmd.Flags().StringVar(&f.Source, "source", "cli", "where the fact came from")
	cmd.Flags().StringVar(&f.ExternalKey, "key", "", "unique external key (e.g. github:owner/repo#123)")
	cmd.Flags().Float64Var(&f.Trust, "trust", holomem.DefaultTrust, "initial trust 0..1")
	cmd.Flags().StringVar(&anchorFile, "anchor", "", "anchor the fact to a file inside the project (marked stale when it changes)")
	return cmd
}

// newAnchor anchors a fact to the file p (absolute or relative to the
// working directory), which must be a regular file inside root.
func newAnchor(ctx context.Context, root, p string) (*holomem.Anchor, error) {
	rel, err := anchor.Rel(root, p)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, fmt.Errorf("%w: anchor %s: no such file", holomem.ErrInvalid, p)
	}
	if err != nil {
		return nil, err
	}
	return anchor.New(ctx, root, rel)
}
