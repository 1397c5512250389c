package main

import (
	"fmt"
	"io"
	"time"

	"github.com/spf13/cobra"

	"github.com/holomem/holomem/hub"
)

func (a *app) modelCmd() *cobra.Command {
	cmd := &cobra.Command{Use: "model", Short: "Download and list embedding models", GroupID: "admin"}
	var revision, baseURL string
	pull := &cobra.Command{
		Use:   "pull [NAME]",
		Short: "Download a sentence model from the model hub (resumable, checksummed)",
		Long: `Downloads the standard files of a sentence model (config, tokenizer,
model.safetensors) into the model directory, resuming a broken download and
verifying SHA-256 checksums. NAME defaults to --model. Needs internet access
to the hub (or --base-url of a mirror); $HF_TOKEN is sent when set.`,
		Args: cobra.MaximumNArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			name := a.modelName
			if len(args) == 1 {
				name = args[0]
			}
			c := hub.NewClient()
			if baseURL != "" {
				c.BaseURL = baseURL
			}
			bar := a.progress()
			c.Progress = func(file string, done, total int64) {
				bar.Update(file, int(done>>10), int(max(total, 0)>>10))
			}
			t0 := time.Now()
			m, err := c.Pull(cmd.Context(), name, revision, a.modelDirPath())
			bar.Done()
			if err != nil {
				return fmt.Errorf("pull %s (run it again to resume): %w", name, err)
			}
			var size int64
			for _, f := range m.Files {
				size += f.Size
			}
			return a.out(m, func(w io.Writer) {
				fmt.Fprintf(w, "%s@%s: %d files, %s in %s (%s)\n", m.Repo, m.Revision, len(m.Files), humanBytes(size), m.Dir, time.Since(t0).Round(time.Millisecond))
				fmt.Fprintln(w, "next: `holomem backfill` embeds the facts stored before the model arrived")
			})
		},
	}
	pull.Flags().StringVar(&revision, "revision", "main", "branch, tag or commit")
	pull.Flags().StringVar(&baseURL, "base-url", "", "hub URL (default "+hub.DefaultBaseURL+")")
	list := &cobra.Command{
		Use: "list", Short: "List installed models", Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			ms, err := hub.List(a.modelDirPath())
			if err != nil {
				return err
			}
			if ms == nil {
				ms = []hub.Manifest{}
			}
			return a.out(ms, func(w io.Writer) {
				if len(ms) == 0 {
					fmt.Fprintf(w, "no models in %s: run `holomem model pull`\n", a.modelDirPath())
				}
				for _, m := range ms {
					fmt.Fprintf(w, "%-60s %s %s  %s\n", m.Repo, m.Revision, m.PulledAt.Format("2006-01-02"), m.Dir)
				}
			})
		},
	}
	cmd.AddCommand(pull, list)
	return cmd
}
