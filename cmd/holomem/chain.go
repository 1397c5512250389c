package main

import (
	"fmt"
	"io"

	"github.com/spf13/cobra"

	"github.com/holomem/holomem"
)

// chainOut is one fact reached by `holomem chain`.
type chainOut struct {
	Direction string             `json:"direction"`
	Path      []int64            `json:"path"`
	Kinds     []holomem.EdgeKind `json:"kinds"`
	Content   string             `json:"content"`
}

func (a *app) chainCmd() *cobra.Command {
	var kinds []string
	var depth int
	cmd := &cobra.Command{
		Use: "chain ID", Short: "Follow causal edges both ways: what caused a fact and what it caused (issue <-> fix)", GroupID: "graph",
		Args: cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			_, start, err := a.factArg(cmd.Context(), args[0])
			if err != nil {
				return err
			}
			m, err := a.memory(cmd.Context())
			if err != nil {
				return err
			}
			var hk []holomem.EdgeKind
			for _, k := range kinds {
				hk = append(hk, holomem.EdgeKind(k))
			}
			steps, err := m.Chain(cmd.Context(), start.ID, hk, depth)
			if err != nil {
				return err
			}
			out := make([]chainOut, len(steps))
			for i, st := range steps {
				out[i] = chainOut{Direction: st.Direction, Path: st.Path, Kinds: st.Kinds, Content: st.Fact.Content}
			}
			return a.out(map[string]any{"start": start.ID, "chain": out}, func(w io.Writer) {
				fmt.Fprintf(w, "#%d %s\n", start.ID, oneLine(start.Content, 100))
				if len(out) == 0 {
					fmt.Fprintln(w, "  no causal links")
				}
				for _, c := range out {
					arrow := "caused ->"
					if c.Direction == holomem.ChainBackward {
						arrow = "<- caused by"
					}
					fmt.Fprintf(w, "  %s #%d %s  (path %s)\n", arrow, c.Path[len(c.Path)-1], oneLine(c.Content, 80), joinIDs(c.Path, " "))
				}
			})
		},
	}
	cmd.Flags().StringSliceVar(&kinds, "kind", []string{string(holomem.EdgeCausal)}, "edge kinds to follow")
	cmd.Flags().IntVar(&depth, "depth", holomem.DefaultChainDepth, "maximum hops")
	return cmd
}
