package main

import (
	"io"

	"github.com/holomem/holomem"
	"github.com/spf13/cobra"
)

func (a *app) reasonCmd() *cobra.Command {
	var limit int
	cmd := &cobra.Command{
		Use: "reason ENTITY ENTITY...", Short: "Facts involving all the entities (quote multi-word names)", GroupID: "search", Args: cobra.MinimumNArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			m, err := a.memory(cmd.Context())
			if err != nil {
				return err
			}
			hits, err := m.Reason(cmd.Context(), a.ns(), args, limit)
			if err != nil {
				return err
			}
			return a.out(map[string]any{"hits": hits}, func(w io.Writer) { printHits(w, hits) })
		},
	}
	cmd.Flags().IntVarP(&limit, "limit", "k", holomem.DefaultLimit, "number of facts")
	return cmd
}
