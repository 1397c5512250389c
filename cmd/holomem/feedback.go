package main

import (
	"fmt"
	"io"

	"github.com/spf13/cobra"
)

func (a *app) feedbackCmd() *cobra.Command {
	var helpful, unhelpful bool
	cmd := &cobra.Command{
		Use: "feedback ID (--helpful | --unhelpful)", Short: "Rate a fact: trust +0.05 or -0.10", GroupID: "facts", Args: cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			id, err := parseID(args[0])
			if err != nil {
				return err
			}
			if helpful == unhelpful {
				return usagef("give exactly one of --helpful or --unhelpful")
			}
			if err := a.idsIn(cmd.Context(), "feedback", id); err != nil {
				return err
			}
			m, err := a.memory(cmd.Context())
			if err != nil {
				return err
			}
			f, err := m.Feedback(cmd.Context(), id, helpful)
			if err != nil {
				return err // the store's error names the operation and the ids
			}
			f.Embedding = nil
			return a.out(f, func(w io.Writer) { fmt.Fprintf(w, "#%d trust %.2f\n", f.ID, f.Trust) })
		},
	}
	cmd.Flags().BoolVar(&helpful, "helpful", false, "the fact helped")
	cmd.Flags().BoolVar(&unhelpful, "unhelpful", false, "the fact was wrong or useless")
	return cmd
}
