package main

import (
	"fmt"
	"io"

	"github.com/spf13/cobra"
)

func (a *app) forgetCmd() *cobra.Command {
	return &cobra.Command{
		Use: "forget ID...", Short: "Delete facts (and their edges)", GroupID: "facts", Args: cobra.MinimumNArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			m, err := a.memory(cmd.Context())
			if err != nil {
				return err
			}
			var done []int64
			for _, s := range args {
				id, err := parseID(s)
				if err != nil {
					return err
				}
				if err := m.Forget(cmd.Context(), id); err != nil {
					return fmt.Errorf("forget fact %d: %w", id, err)
				}
				done = append(done, id)
			}
			return a.out(map[string]any{"forgotten": done}, func(w io.Writer) {
				for _, id := range done {
					fmt.Fprintf(w, "forgot #%d\n", id)
				}
			})
		},
	}
}
