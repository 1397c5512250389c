package main

import (
	"fmt"
	"io"

	"github.com/spf13/cobra"

	"github.com/holomem/holomem"
	"github.com/holomem/holomem/graph"
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
			s, err := a.open(cmd.Context())
			if err != nil {
				return err
			}
			e := &holomem.Edge{From: from, To: to, Kind: holomem.EdgeKind(kind), Weight: weight, Origin: origin}
			created, err := s.CreateEdge(cmd.Context(), e)
			if err != nil {
				return fmt.Errorf("link %d -> %d: %w", from, to, err)
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

func (a *app) unlinkCmd() *cobra.Command {
	var kind string
	cmd := &cobra.Command{
		Use: "unlink FROM TO", Short: "Delete an edge", GroupID: "graph", Args: cobra.ExactArgs(2),
		RunE: func(cmd *cobra.Command, args []string) error {
			from, to, err := parseIDPair(args)
			if err != nil {
				return err
			}
			s, err := a.open(cmd.Context())
			if err != nil {
				return err
			}
			if err := s.DeleteEdge(cmd.Context(), from, to, holomem.EdgeKind(kind)); err != nil {
				return fmt.Errorf("unlink %d -> %d: %w", from, to, err)
			}
			return a.out(map[string]any{"deleted": true}, func(w io.Writer) { fmt.Fprintf(w, "unlinked #%d -[%s]-> #%d\n", from, kind, to) })
		},
	}
	cmd.Flags().StringVar(&kind, "kind", string(holomem.EdgeCausal), "edge kind")
	return cmd
}

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
	cmd.Flags().StringSliceVar(&kinds, "kind", nil, "only these kinds")
	return cmd
}

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
