package main

import (
	"fmt"
	"io"

	"github.com/holomem/holomem"
	"github.com/spf13/cobra"
)

func (a *app) statsCmd() *cobra.Command {
	var all bool
	cmd := &cobra.Command{
		Use: "stats", Short: "Counts of facts, entities, edges, vectors", GroupID: "admin", Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			s, err := a.open(cmd.Context())
			if err != nil {
				return err
			}
			ns := a.ns()
			if all {
				ns = ""
			}
			st, err := s.Stats(cmd.Context(), ns)
			if err != nil {
				return err
			}
			return a.out(st, func(w io.Writer) { printStats(w, st) })
		},
	}
	cmd.Flags().BoolVar(&all, "all", false, "all namespaces")
	return cmd
}

func printStats(w io.Writer, st *holomem.Stats) {
	fmt.Fprintf(w, "database:   %s (schema %d, %s)\n", st.Path, st.SchemaVersion, humanBytes(st.SizeBytes))
	fmt.Fprintf(w, "facts:      %d (%d superseded)\n", st.Facts, st.Superseded)
	fmt.Fprintf(w, "entities:   %d\n", st.Entities)
	printCounts(w, "namespaces", st.Namespaces)
	printCounts(w, "categories", st.Categories)
	printCounts(w, "edges", st.Edges)
	printCounts(w, "vectors", st.Models)
}
