package main

import (
	"io"
	"strings"

	"github.com/holomem/holomem"
	"github.com/spf13/cobra"
)

func (a *app) probeCmd() *cobra.Command {
	var limit int
	cmd := &cobra.Command{
		Use: "probe ENTITY", Short: "Facts about an entity (HRR unbinding)", GroupID: "search", Args: cobra.MinimumNArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			m, err := a.memory(cmd.Context())
			if err != nil {
				return err
			}
			hits, err := m.Probe(cmd.Context(), a.ns(), strings.Join(args, " "), limit)
			if err != nil {
				return err
			}
			return a.out(map[string]any{"hits": hits}, func(w io.Writer) { printHits(w, hits) })
		},
	}
	cmd.Flags().IntVarP(&limit, "limit", "k", holomem.DefaultLimit, "number of facts")
	return cmd
}
