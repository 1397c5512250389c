package main

import (
	"fmt"
	"io"
	"time"

	"github.com/spf13/cobra"
)

func (a *app) graphCmd() *cobra.Command {
	cmd := &cobra.Command{Use: "graph", Short: "The HNSW neighbour graph over embeddings", GroupID: "graph"}
	build := &cobra.Command{
		Use:   "build",
		Short: "Build (or rebuild) the HNSW graph of every namespace and store it (after a bulk import)",
		Long: `Builds the HNSW index over the current model's vectors, stores its bottom
layer as similar_to edges (origin "hnsw": the memory's neighbour graph) and
its upper layers in the index's own tables, then runs the recall canary. An interrupted build leaves no graph that
a later load would trust; run it again to rebuild. Needs an embedding model.`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			a.useGraph = true
			m, err := a.memory(cmd.Context())
			if err != nil {
				return err
			}
			bar := a.progress()
			rep, err := m.Index().Build(cmd.Context(), bar.Update)
			bar.Done()
			if err != nil {
				return fmt.Errorf("graph build (run it again to rebuild): %w", err)
			}
			return a.out(rep, func(w io.Writer) {
				for _, ns := range rep.Namespaces {
					if ns.Skipped != "" {
						fmt.Fprintf(w, "%s: skipped (%s)\n", ns.Namespace, ns.Skipped)
						continue
					}
					fmt.Fprintf(w, "%s: %d vectors, %d edges, %d layers in %s", ns.Namespace, ns.Vectors, ns.Edges, ns.MaxLevel+1, ns.Took.Round(time.Millisecond))
					if ns.Canary != nil {
						fmt.Fprintf(w, ", canary recall@10 %.3f", ns.Canary.Recall)
					}
					fmt.Fprintln(w)
				}
			})
		},
	}
	cmd.AddCommand(build)
	return cmd
}
