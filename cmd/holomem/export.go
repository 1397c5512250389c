package main

import (
	"fmt"
	"os"

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
				f, err := os.OpenFile(out, os.O_WRONLY|os.O_CREATE|os.O_TRUNC, 0o600) // memory is private
				if err != nil {
					return err
				}
				defer f.Close()
				w = f
			}
			ns := a.ns()
			if all {
				ns = ""
			}
			rep, err := importer.Export(ctx, s, w, ns)
			if err != nil {
				return err
			}
			if out != "" && out != "-" {
				fmt.Fprintf(a.stderr, "exported %d facts and %d edges to %s\n", rep.Facts, rep.Edges, out)
			}
			return nil
		},
	}
	cmd.Flags().StringVarP(&out, "out", "o", "-", "output file (default standard output)")
	cmd.Flags().BoolVar(&all, "all", false, "all namespaces")
	return cmd
}
