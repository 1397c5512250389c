package main

import (
	"fmt"
	"io"

	"github.com/holomem/holomem"
	"github.com/spf13/cobra"
)

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
			if err := a.idsIn(cmd.Context(), "update", id); err != nil {
				return err
			}
			m, err := a.memory(cmd.Context())
			if err != nil {
				return err
			}
			f, err := m.Update(cmd.Context(), id, upd)
			if err != nil {
				return err // the store's error names the operation and the ids
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
