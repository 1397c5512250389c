package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"strconv"
	"strings"
	"text/tabwriter"

	"github.com/spf13/cobra"

	"github.com/holomem/holomem"
	"github.com/holomem/holomem/anchor"
	"github.com/holomem/holomem/sqlite"
)

func (a *app) commands() []*cobra.Command {
	cmds := []*cobra.Command{
		a.initCmd(), a.addCmd(), a.getCmd(), a.updateCmd(), a.forgetCmd(), a.feedbackCmd(),
		a.listCmd(), a.supersedeCmd(),
		a.recallCmd(), a.probeCmd(), a.relatedCmd(), a.reasonCmd(),
		a.statsCmd(), a.doctorCmd(), a.exportCmd(), a.importCmd(),
	}
	return append(cmds, a.extraCommands()...)
}

func parseID(s string) (int64, error) {
	id, err := strconv.ParseInt(strings.TrimPrefix(strings.TrimSpace(s), "#"), 10, 64)
	if err != nil || id <= 0 {
		return 0, usagef("%q is not a fact id (a positive number)", s)
	}
	return id, nil
}

// factArg opens the store and loads the fact an argument names.
func (a *app) factArg(ctx context.Context, arg string) (*sqlite.Store, *holomem.Fact, error) {
	id, err := parseID(arg)
	if err != nil {
		return nil, nil, err
	}
	s, err := a.open(ctx)
	if err != nil {
		return nil, nil, err
	}
	f, err := s.FindFactByID(ctx, id)
	if err != nil {
		return nil, nil, err
	}
	return s, f, nil
}

// parseIDPair parses the two fact ids of supersede, link and unlink.
func parseIDPair(args []string) (int64, int64, error) {
	a, err := parseID(args[0])
	if err != nil {
		return 0, 0, err
	}
	b, err := parseID(args[1])
	return a, b, err
}

func (a *app) initCmd() *cobra.Command {
	return &cobra.Command{
		Use: "init", Short: "Create the database (other commands create it too)", GroupID: "admin",
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			s, err := a.open(cmd.Context())
			if err != nil {
				return err
			}
			st, err := s.Stats(cmd.Context(), "")
			if err != nil {
				return err
			}
			return a.out(map[string]any{"db": a.dbPath, "schema_version": st.SchemaVersion, "facts": st.Facts}, func(w io.Writer) {
				fmt.Fprintf(w, "holomem database ready: %s (schema %d, %d facts)\n", a.dbPath, st.SchemaVersion, st.Facts)
			})
		},
	}
}

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
		Use: "add CONTENT... | add -", Short: "Remember a fact (reports near-duplicates and contradictions)", GroupID: "facts",
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

func (a *app) getCmd() *cobra.Command {
	return &cobra.Command{
		Use: "get ID", Short: "Show a fact", GroupID: "facts", Args: cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			_, f, err := a.factArg(cmd.Context(), args[0])
			if err != nil {
				return err
			}
			f.Embedding = nil
			return a.out(f, func(w io.Writer) { printFact(w, f) })
		},
	}
}

func printFact(w io.Writer, f *holomem.Fact) {
	tw := tabwriter.NewWriter(w, 0, 0, 1, ' ', 0)
	fmt.Fprintf(tw, "id:\t%d\n", f.ID)
	fmt.Fprintf(tw, "namespace:\t%s\n", f.Namespace)
	fmt.Fprintf(tw, "category:\t%s\n", f.Category)
	if len(f.Tags) > 0 {
		fmt.Fprintf(tw, "tags:\t%s\n", strings.Join(f.Tags, ", "))
	}
	if f.Source != "" {
		fmt.Fprintf(tw, "source:\t%s\n", f.Source)
	}
	if f.ExternalKey != "" {
		fmt.Fprintf(tw, "key:\t%s\n", f.ExternalKey)
	}
	fmt.Fprintf(tw, "trust:\t%.2f (helpful %d, unhelpful %d, retrieved %d)\n", f.Trust, f.HelpfulCount, f.UnhelpfulCount, f.RetrievalCount)
	fmt.Fprintf(tw, "created:\t%s\n", f.CreatedAt.Format("2006-01-02 15:04:05"))
	fmt.Fprintf(tw, "changed:\t%s\n", f.UpdatedAt.Format("2006-01-02 15:04:05"))
	if len(f.Entities) > 0 {
		fmt.Fprintf(tw, "entities:\t%s\n", strings.Join(f.Entities, ", "))
	}
	if f.SupersededBy != 0 {
		fmt.Fprintf(tw, "superseded by:\t#%d\n", f.SupersededBy)
	}
	if f.Anchor != nil {
		fmt.Fprintf(tw, "anchor:\t%s\n", f.Anchor.Path)
	}
	if f.ModelID != "" {
		fmt.Fprintf(tw, "vector:\t%s\n", f.ModelID)
	}
	tw.Flush()
	fmt.Fprintf(w, "\n%s\n", f.Content)
}

func (a *app) updateCmd() *cobra.Command {
	var content, category, source string
	var tags []string
	var trust float64
	cmd := &cobra.Command{
		Use: "update ID", Short: "Change a fact's content, category, tags or trust", GroupID: "facts", Args: cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			id, err := parseID(args[0])
			if err != nil {
				return err
			}
			var upd holomem.FactUpdate
			fl := cmd.Flags()
			if fl.Changed("content") {
				upd.Content = &content
			}
			if fl.Changed("category") {
				upd.Category = &category
			}
			if fl.Changed("source") {
				upd.Source = &source
			}
			if fl.Changed("tags") {
				upd.Tags = &tags
			}
			if fl.Changed("trust") {
				upd.Trust = &trust
			}
			if upd.Content == nil && upd.Category == nil && upd.Source == nil && upd.Tags == nil && upd.Trust == nil {
				return usagef("nothing to update: give --content, --category, --tags, --source or --trust")
			}
			m, err := a.memory(cmd.Context())
			if err != nil {
				return err
			}
			f, err := m.Update(cmd.Context(), id, upd)
			if err != nil {
				return fmt.Errorf("update fact %d: %w", id, err)
			}
			f.Embedding = nil
			return a.out(f, func(w io.Writer) { fmt.Fprintf(w, "updated #%d\n", f.ID) })
		},
	}
	cmd.Flags().StringVar(&content, "content", "", "new content")
	cmd.Flags().StringVarP(&category, "category", "c", "", "new category")
	cmd.Flags().StringVar(&source, "source", "", "new source")
	cmd.Flags().StringSliceVarP(&tags, "tags", "t", nil, "new tags (replaces all)")
	cmd.Flags().Float64Var(&trust, "trust", 0, "new trust 0..1")
	return cmd
}

func (a *app) forgetCmd() *cobra.Command {
	return &cobra.Command{
		Use: "forget ID...", Short: "Delete facts (and their edges)", GroupID: "facts", Args: cobra.MinimumNArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			m, err := a.memory(cmd.Context())
			if err != nil {
				return err
			}
			var done []int64
			for _, s := range args {
				id, err := parseID(s)
				if err != nil {
					return err
				}
				if err := m.Forget(cmd.Context(), id); err != nil {
					return fmt.Errorf("forget fact %d: %w", id, err)
				}
				done = append(done, id)
			}
			return a.out(map[string]any{"forgotten": done}, func(w io.Writer) {
				for _, id := range done {
					fmt.Fprintf(w, "forgot #%d\n", id)
				}
			})
		},
	}
}

func (a *app) feedbackCmd() *cobra.Command {
	var helpful, unhelpful bool
	cmd := &cobra.Command{
		Use: "feedback ID (--helpful | --unhelpful)", Short: "Rate a fact: trust +0.05 or -0.10", GroupID: "facts", Args: cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			id, err := parseID(args[0])
			if err != nil {
				return err
			}
			if helpful == unhelpful {
				return usagef("give exactly one of --helpful or --unhelpful")
			}
			m, err := a.memory(cmd.Context())
			if err != nil {
				return err
			}
			f, err := m.Feedback(cmd.Context(), id, helpful)
			if err != nil {
				return fmt.Errorf("feedback on fact %d: %w", id, err)
			}
			f.Embedding = nil
			return a.out(f, func(w io.Writer) { fmt.Fprintf(w, "#%d trust %.2f\n", f.ID, f.Trust) })
		},
	}
	cmd.Flags().BoolVar(&helpful, "helpful", false, "the fact helped")
	cmd.Flags().BoolVar(&unhelpful, "unhelpful", false, "the fact was wrong or useless")
	return cmd
}

func (a *app) listCmd() *cobra.Command {
	var category, tag string
	var limit, offset int
	var all bool
	cmd := &cobra.Command{
		Use: "list", Short: "List facts by id", GroupID: "facts", Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			s, err := a.open(cmd.Context())
			if err != nil {
				return err
			}
			ns := a.ns()
			flt := holomem.FactFilter{Namespace: &ns, Limit: limit, Offset: offset, IncludeSuperseded: all}
			if category != "" {
				flt.Category = &category
			}
			if tag != "" {
				flt.Tag = &tag
			}
			facts, total, err := s.FindFacts(cmd.Context(), flt)
			if err != nil {
				return err
			}
			if facts == nil {
				facts = []*holomem.Fact{}
			}
			return a.out(map[string]any{"facts": facts, "total": total}, func(w io.Writer) {
				for _, f := range facts {
					fmt.Fprintf(w, "#%-6d %-10s %s\n", f.ID, f.Category, oneLine(f.Content, 100))
				}
				fmt.Fprintf(w, "(%d of %d in %s)\n", len(facts), total, ns)
			})
		},
	}
	cmd.Flags().StringVarP(&category, "category", "c", "", "only this category")
	cmd.Flags().StringVar(&tag, "tag", "", "only facts with this tag")
	cmd.Flags().IntVar(&limit, "limit", 50, "at most this many")
	cmd.Flags().IntVar(&offset, "offset", 0, "skip this many")
	cmd.Flags().BoolVar(&all, "all", false, "include superseded facts")
	return cmd
}

func (a *app) supersedeCmd() *cobra.Command {
	return &cobra.Command{
		Use: "supersede OLD NEW", Short: "Record that fact NEW replaces OLD (OLD leaves recall)", GroupID: "facts", Args: cobra.ExactArgs(2),
		RunE: func(cmd *cobra.Command, args []string) error {
			older, newer, err := parseIDPair(args)
			if err != nil {
				return err
			}
			m, err := a.memory(cmd.Context())
			if err != nil {
				return err
			}
			if err := m.Supersede(cmd.Context(), older, newer); err != nil {
				return fmt.Errorf("supersede %d by %d: %w", older, newer, err)
			}
			return a.out(map[string]any{"superseded": older, "by": newer}, func(w io.Writer) {
				fmt.Fprintf(w, "#%d now supersedes #%d\n", newer, older)
			})
		},
	}
}

// oneLine shortens s to n runes on one line.
func oneLine(s string, n int) string {
	s = strings.Join(strings.Fields(s), " ")
	r := []rune(s)
	if len(r) > n {
		return string(r[:n-1]) + "…"
	}
	return s
}

// newAnchor anchors a fact to the file p (absolute or relative to the
// working directory), which must be a regular file inside root.
func newAnchor(ctx context.Context, root, p string) (*holomem.Anchor, error) {
	rel, err := anchor.Rel(root, p)
	var sum string
	if err == nil {
		sum, err = anchor.Hash(ctx, root, rel)
	}
	switch {
	case errors.Is(err, fs.ErrNotExist):
		return nil, fmt.Errorf("%w: anchor %s: no such file", holomem.ErrInvalid, p)
	case err != nil:
		return nil, err
	}
	return &holomem.Anchor{Path: rel, Hash: sum}, nil
}
