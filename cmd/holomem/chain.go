package main

import (
	"fmt"
	"io"

	"github.com/holomem/holomem"
	"github.com/holomem/holomem/graph"
	"github.com/spf13/cobra"
)

// chainOut is one fact reached by `holomem chain`.
type chainOut struct {
	Direction string   `json:"direction"`
	Path      []int64  `json:"path"`
	Kinds     []string `json:"kinds"`
	Content   string   `json:"content"`
}

func (a *app) chainCmd() *cobra.Command {
	var kinds []string
	var depth int
	cmd := &cobra.Command{
		Use: "chain ID", Short: "Follow causal edges both ways: what caused a fact and what it caused (issue <-> fix)", GroupID: "graph",
		Args: cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			s, start, err := a.factArg(cmd.Context(), args[0])
			if err != nil {
				return err
			}
			id := start.ID
			var hk []holomem.EdgeKind
			for _, k := range kinds {
				hk = append(hk, holomem.EdgeKind(k))
			}
			edges, err := s.FindEdges(cmd.Context(), holomem.EdgeFilter{Namespace: start.Namespace, Kinds: hk})
			if err != nil {
				return err
			}
			ge := make([]graph.Edge, len(edges))
			for i, e := range edges {
				ge[i] = graph.Edge{From: e.From, To: e.To, Kind: string(e.Kind), Weight: e.Weight}
			}
			g := graph.New(ge, nil)
			var out []chainOut
			for _, dir := range []graph.Direction{graph.Backward, graph.Forward} {
				for _, p := range graph.Chain(g, id, kinds, dir, depth) {
					f, err := s.FindFactByID(cmd.Context(), p.End())
					if err != nil {
						return err
					}
					c := chainOut{Direction: dir.String(), Path: p.IDs, Content: f.Content}
					for _, h := range p.Hops {
						c.Kinds = append(c.Kinds, h.Kind)
					}
					out = append(out, c)
				}
			}
			if out == nil {
				out = []chainOut{}
			}
			return a.out(map[string]any{"start": start.ID, "chain": out}, func(w io.Writer) {
				fmt.Fprintf(w, "#%d %s\n", start.ID, oneLine(start.Content, 100))
				if len(out) == 0 {
					fmt.Fprintln(w, "  no causal links")
				}
				for _, c := range out {
					arrow := "caused ->"
					if c.Direction == graph.Backward.String() {
						arrow = "<- caused by"
					}
					fmt.Fprintf(w, "  %s #%d %s  (path %s)\n", arrow, c.Path[len(c.Path)-1], oneLine(c.Content, 80), joinIDs(c.Path, " "))
				}
			})
		},
	}
	cmd.Flags().StringSliceVar(&kinds, "kind", []string{string(holomem.EdgeCausal)}, "edge kinds to follow")
	cmd.Flags().IntVar(&depth, "depth", 5, "maximum hops")
	return cmd
}
