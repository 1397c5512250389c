package main

import "github.com/spf13/cobra"

func (a *app) reembedCmd() *cobra.Command {
	return &cobra.Command{
		Use: "reembed --model M", Short: "Move every vector to another model (resumable; run again after an interruption)", GroupID: "admin", Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			if !cmd.Flags().Changed("model") && !cmd.Root().PersistentFlags().Changed("model") {
				return usagef("reembed needs --model NAME (the model to move to)")
			}
			if _, err := a.embedder(); err != nil {
				return err
			}
			return a.runBackfill(cmd)
		},
	}
}
