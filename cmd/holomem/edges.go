package main

import (
	"fmt"
	"io"

	"github.com/holomem/holomem"
	"github.com/spf13/cobra"
)

func (a *app) edgesCmd() *cobra.Command {
	var kinds []string
	cmd := &cobra.Command{
		Use: "edges ID", Short: "List a fact's edges", GroupID: "graph", Args: cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			s, f, err := a.factArg(cmd.Context(), args[0])
			if err != nil {
				return err
			}
			id := f.ID
			flt := holomem.EdgeFilter{FactID: id}
			for _, k := range kinds {
				flt.Kinds = append(flt.Kinds, holomem.EdgeKind(k))
			}
			edges, err := s.FindEdges(cmd.Context(), flt)
			if err != nil {
				return err
			}
			// The rule every door shows edges by: the index's similar_to
			// edges only for --kind similar_to.
			edges = holomem.ShownEdges(edges, flt.Kinds)
			if edges == nil {
				edges = []*holomem.Edge{}
			}
			return a.out(map[string]any{"edges": edges}, func(w io.Writer) {
				if len(edges) == 0 {
					fmt.Fprintf(w, "#%d has no edges\n", id)
				}
				for _, e := range edges {
					fmt.Fprintf(w, "#%d -[%s %.2f %s]-> #%d\n", e.From, e.Kind, e.Weight, e.Origin, e.To)
				}
			})
		},
	}
	cmd.Flags().StringSliceVar(&kinds, "kind", nil, "only these kinds (the similar_to edges of the vector index are shown only when named here)")
	return cmd
}
