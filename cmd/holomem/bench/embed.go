package bench

import (
	"fmt"
	"os"

	"github.com/holomem/holomem/embed"
	"github.com/spf13/cobra"
)

func (e *Env) embedCmd() *cobra.Command {
	var shapes string
	var keep, speedOnly bool
	cmd := &cobra.Command{
		Use:   "embed [MODEL_DIR]",
		Short: "Encoder speed, RSS and load time (default: generated models at MiniLM-L12 and L6 shapes)",
		Long: `Measures ms per text and texts/s (wall and CPU time, medians of repeated calls)
for one text of 10, 60 and 128 tokens and batches of 32 texts of mixed (8-47)
and equal (28) lengths, with 1 thread and with all; Embed on text through the
tokenizer; load time and RSS loaded / after unload. The token ids are those of
MODEL_DIR/inputs.json when it names its batches (scripts/onnx-ref times the
same file with ONNX Runtime), fixed random ones otherwise.

With MODEL_DIR it measures that model; otherwise it generates random weights
and a small tokenizer at the real shapes of paraphrase-multilingual-MiniLM-L12-v2
(--shapes l12) and all-MiniLM-L6-v2 (--shapes l6) in a temporary directory
(about 400 MB of disk for L12), with inputs.json; --keep keeps it for
scripts/onnx-ref. --speed-only prints just the 1-thread cases as tab-separated
name, wall ms/text, CPU ms/text, calls (what scripts/onnx-ref/compare.sh reads).`,
		Args: cobra.MaximumNArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			report := embed.BenchReport
			if speedOnly {
				report = embed.BenchSpeed
			}
			if len(args) == 1 {
				return report(cmd.Context(), args[0], e.Stdout)
			}
			cfgs := map[string]embed.Config{
				"l12": embed.MiniLML12Config,
				"l6":  embed.MiniLML6Config,
			}
			names := []string{"l12", "l6"}
			if shapes != "all" {
				names = []string{shapes}
			}
			for _, name := range names {
				cfg, ok := cfgs[name]
				if !ok {
					return e.Usage("unknown --shapes %q: use l12, l6 or all", shapes)
				}
				dir, err := os.MkdirTemp("", "holomem-bench-"+name)
				if err != nil {
					return err
				}
				err = func() error {
					fmt.Fprintf(e.Stderr, "generating random weights at %s shapes in %s ...\n", name, dir)
					if err := embed.GenerateModel(dir, cfg, 1); err != nil {
						return err
					}
					if err := embed.GenerateTokenizer(dir, cfg.VocabSize); err != nil {
						return err
					}
					if err := embed.WriteBenchInputs(dir, cfg); err != nil {
						return err
					}
					fmt.Fprintf(e.Stdout, "== %s shapes (%d layers, hidden %d, vocab %d)\n", name, cfg.NumLayers, cfg.HiddenSize, cfg.VocabSize)
					return report(cmd.Context(), dir, e.Stdout)
				}()
				if !keep {
					if rerr := os.RemoveAll(dir); err == nil {
						err = rerr
					}
				}
				if err != nil {
					return err
				}
			}
			return nil
		},
	}
	cmd.Flags().StringVar(&shapes, "shapes", "all", "l12, l6 or all")
	cmd.Flags().BoolVar(&keep, "keep", false, "keep the generated model directories (for scripts/onnx-ref)")
	cmd.Flags().BoolVar(&speedOnly, "speed-only", false, "print only the 1-thread speed cases, tab-separated")
	return cmd
}
