package main

import (
	"fmt"
	"io"

	"github.com/spf13/cobra"
)

func (a *app) backfillCmd() *cobra.Command {
	return &cobra.Command{
		Use: "backfill", Short: "Derive entities again after an upgrade, fill missing HRR vectors and embeddings (resumable)", GroupID: "admin", Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			return a.runBackfill(cmd)
		},
	}
}

func (a *app) runBackfill(cmd *cobra.Command) error {
	m, err := a.memory(cmd.Context())
	if err != nil {
		return err
	}
	bar := a.progress()
	n, err := m.Backfill(cmd.Context(), bar.Update)
	bar.Done()
	if err != nil {
		return fmt.Errorf("backfill (run it again to resume): %w", err)
	}
	model := "none (HRR only; run `holomem model pull` for embeddings)"
	if e := m.Embedder(); e != nil {
		model = e.ModelID()
	}
	return a.out(map[string]any{"updated": n, "model": model}, func(w io.Writer) {
		fmt.Fprintf(w, "backfilled %d facts (model: %s)\n", n, model)
	})
}
