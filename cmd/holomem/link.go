package main

import (
	"fmt"
	"io"

	"github.com/spf13/cobra"

	"github.com/holomem/holomem"
)

func (a *app) linkCmd() *cobra.Command {
	var kind, origin string
	var weight float64
	cmd := &cobra.Command{
		Use: "link FROM TO", Short: "Link two facts with a typed edge (causal: cause -> effect, issue -> fix)", GroupID: "graph",
		Args: cobra.ExactArgs(2),
		RunE: func(cmd *cobra.Command, args []string) error {
			from, to, err := parseIDPair(args)
			if err != nil {
				return err
			}
			if err := a.idsIn(cmd.Context(), "link", from, to); err != nil {
				return err
			}
			m, err := a.memory(cmd.Context())
			if err != nil {
				return err
			}
			e := &holomem.Edge{From: from, To: to, Kind: holomem.EdgeKind(kind), Weight: weight, Origin: origin}
			created, err := m.Link(cmd.Context(), a.ns(), e)
			if err != nil {
				return err
			}
			return a.out(map[string]any{"edge": e, "created": created}, func(w io.Writer) {
				verb := "linked"
				if !created {
					verb = "updated"
				}
				fmt.Fprintf(w, "%s #%d -[%s %.2f]-> #%d\n", verb, from, kind, weight, to)
			})
		},
	}
	cmd.Flags().StringVar(&kind, "kind", string(holomem.EdgeCausal), "edge kind: causal, temporal, similar_to, supersedes or your own")
	cmd.Flags().Float64Var(&weight, "weight", 1, "edge weight >= 0")
	cmd.Flags().StringVar(&origin, "origin", holomem.OriginUser, "who made the edge")
	return cmd
}
