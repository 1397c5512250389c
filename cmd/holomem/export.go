package main

import (
	"bufio"
	"fmt"
	"os"

	"github.com/holomem/holomem"
	"github.com/holomem/holomem/importer"
	"github.com/spf13/cobra"
)

func (a *app) exportCmd() *cobra.Command {
	var out string
	var all bool
	cmd := &cobra.Command{
		Use: "export", Short: "Export facts and edges as JSONL (import it back with `holomem import`)", GroupID: "admin", Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			ctx := cmd.Context()
			s, err := a.open(ctx)
			if err != nil {
				return err
			}
			w := a.stdout
			if out != "" && out != "-" {
				f, err := os.Create(out)
				if err != nil {
					return err
				}
				defer f.Close()
				w = f
			}
			bw := bufio.NewWriterSize(w, 1<<20)
			jw := importer.NewJSONLWriter(bw)
			flt := holomem.FactFilter{IncludeSuperseded: true, WithEmbedding: true, Limit: 1000}
			ns := a.ns()
			if !all {
				flt.Namespace = &ns
			}
			facts := 0
			for {
				page, _, err := s.FindFacts(ctx, flt)
				if err != nil {
					return err
				}
				if len(page) == 0 {
					break
				}
				for _, f := range page {
					if err := jw.WriteFact(f); err != nil {
						return err
					}
				}
				facts += len(page)
				flt.AfterID = page[len(page)-1].ID
			}
			eflt := holomem.EdgeFilter{}
			if !all {
				eflt.Namespace = ns
			}
			edges, err := s.FindEdges(ctx, eflt)
			if err != nil {
				return err
			}
			n := 0
			for _, e := range edges {
				if derivedEdge(e) {
					continue
				}
				if err := jw.WriteEdge(e); err != nil {
					return err
				}
				n++
			}
			if err := jw.Flush(); err != nil {
				return err
			}
			if err := bw.Flush(); err != nil {
				return err
			}
			if out != "" && out != "-" {
				fmt.Fprintf(a.stderr, "exported %d facts and %d edges to %s\n", facts, n, out)
			}
			return nil
		},
	}
	cmd.Flags().StringVarP(&out, "out", "o", "-", "output file (default standard output)")
	cmd.Flags().BoolVar(&all, "all", false, "all namespaces")
	return cmd
}

// derivedEdge reports edges that are index structure, rebuilt by `graph
// build` rather than exported: HNSW upper layers and its similar_to layer.
func derivedEdge(e *holomem.Edge) bool {
	return holomem.IsHNSWKind(e.Kind) || (e.Kind == holomem.EdgeSimilar && e.Origin == holomem.OriginHNSW)
}
