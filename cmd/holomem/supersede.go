package main

import (
	"fmt"
	"io"

	"github.com/spf13/cobra"
)

func (a *app) supersedeCmd() *cobra.Command {
	return &cobra.Command{
		Use: "supersede OLD NEW", Short: "Record that fact NEW replaces OLD (OLD leaves recall)", GroupID: "facts", Args: cobra.ExactArgs(2),
		RunE: func(cmd *cobra.Command, args []string) error {
			older, newer, err := parseIDPair(args)
			if err != nil {
				return err
			}
			if err := a.idsIn(cmd.Context(), "supersede", older, newer); err != nil {
				return err
			}
			m, err := a.memory(cmd.Context())
			if err != nil {
				return err
			}
			if err := m.Supersede(cmd.Context(), older, newer); err != nil {
				return err // the store's error names the operation and the ids
			}
			return a.out(map[string]any{"superseded": older, "by": newer}, func(w io.Writer) {
				fmt.Fprintf(w, "#%d now supersedes #%d\n", newer, older)
			})
		},
	}
}
