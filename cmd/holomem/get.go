package main

import (
	"fmt"
	"io"
	"strings"
	"text/tabwriter"

	"github.com/holomem/holomem"
	"github.com/spf13/cobra"
)

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
