package main

import (
	"fmt"
	"io"

	"github.com/holomem/holomem"
	"github.com/spf13/cobra"
)

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
