package main

import (
	"fmt"
	"io"

	"github.com/holomem/holomem"
	"github.com/spf13/cobra"
)

func (a *app) unlinkCmd() *cobra.Command {
	var kind string
	cmd := &cobra.Command{
		Use: "unlink FROM TO", Short: "Delete an edge", GroupID: "graph", Args: cobra.ExactArgs(2),
		RunE: func(cmd *cobra.Command, args []string) error {
			from, to, err := parseIDPair(args)
			if err != nil {
				return err
			}
			if err := a.idsIn(cmd.Context(), "unlink", from, to); err != nil {
				return err
			}
			m, err := a.memory(cmd.Context())
			if err != nil {
				return err
			}
			if err := m.Unlink(cmd.Context(), a.ns(), from, to, holomem.EdgeKind(kind)); err != nil {
				return err
			}
			return a.out(map[string]any{"deleted": true}, func(w io.Writer) { fmt.Fprintf(w, "unlinked #%d -[%s]-> #%d\n", from, kind, to) })
		},
	}
	cmd.Flags().StringVar(&kind, "kind", string(holomem.EdgeCausal), "edge kind")
	return cmd
}
