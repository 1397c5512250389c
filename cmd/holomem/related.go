package main

import (
	"fmt"
	"io"
	"strings"

	"github.com/holomem/holomem"
	"github.com/spf13/cobra"
)

func (a *app) relatedCmd() *cobra.Command {
	var limit int
	cmd := &cobra.Command{
		Use: "related ENTITY", Short: "Entities structurally connected to an entity", GroupID: "search", Args: cobra.MinimumNArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			m, err := a.memory(cmd.Context())
			if err != nil {
				return err
			}
			ents, err := m.Related(cmd.Context(), a.ns(), strings.Join(args, " "), limit)
			if err != nil {
				return err
			}
			return a.out(map[string]any{"entities": ents}, func(w io.Writer) {
				if len(ents) == 0 {
					fmt.Fprintln(w, "no related entities found")
				}
				for _, e := range ents {
					fmt.Fprintf(w, "%-30s %.3f  (%d facts)\n", e.Entity, e.Score, e.Facts)
				}
			})
		},
	}
	cmd.Flags().IntVarP(&limit, "limit", "k", holomem.DefaultLimit, "number of entities")
	return cmd
}
