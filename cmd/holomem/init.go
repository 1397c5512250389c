package main

import (
	"fmt"
	"io"

	"github.com/spf13/cobra"
)

func (a *app) initCmd() *cobra.Command {
	return &cobra.Command{
		Annotations: createsDB,
		Use:         "init", Short: "Create the database (add, import, serve and mcp create it too)", GroupID: "admin",
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			s, err := a.open(cmd.Context())
			if err != nil {
				return err
			}
			st, err := s.Stats(cmd.Context(), "")
			if err != nil {
				return err
			}
			return a.out(map[string]any{"db": a.dbPath, "schema_version": st.SchemaVersion, "facts": st.Facts}, func(w io.Writer) {
				fmt.Fprintf(w, "holomem database ready: %s (schema %d, %d facts)\n", a.dbPath, st.SchemaVersion, st.Facts)
			})
		},
	}
}
