package bench

import (
	"fmt"
	"os"

	"github.com/holomem/holomem/embed"
	"github.com/spf13/cobra"
)

func (e *Env) embedCmd() *cobra.Command {
	var shapes string
	var keep bool
	cmd := &cobra.Command{
		Use:   "embed [MODEL_DIR]",
		Short: "Encoder speed, RSS and load time (default: generated models at MiniLM-L12 and L6 shapes)",
		Long: `Measures ms per text at 10 and 60 tokens (1 thread and all), texts/s in batches
of 32, load time and RSS loaded / after unload. With MODEL_DIR it measures that
model; otherwise it generates random weights at the real shapes of
paraphrase-multilingual-MiniLM-L12-v2 (--shapes l12) and all-MiniLM-L6-v2
(--shapes l6) in a temporary directory (about 400 MB of disk for L12).`,
		Args: cobra.MaximumNArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			if len(args) == 1 {
				return embed.BenchReport(cmd.Context(), args[0], e.Stdout)
			}
			cfgs := map[string]embed.Config{
				"l12": {ModelType: "xlm-roberta", VocabSize: 250002, HiddenSize: 384, NumLayers: 12, NumHeads: 12, IntermediateSize: 1536, MaxPositions: 514, TypeVocabSize: 1, LayerNormEps: 1e-5, PadTokenID: 1, HiddenAct: "gelu", MaxSeqLength: 128},
				"l6":  {ModelType: "bert", VocabSize: 30522, HiddenSize: 384, NumLayers: 6, NumHeads: 12, IntermediateSize: 1536, MaxPositions: 512, TypeVocabSize: 2, LayerNormEps: 1e-12, PadTokenID: 0, HiddenAct: "gelu", MaxSeqLength: 256},
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
				if !keep {
					defer os.RemoveAll(dir)
				}
				fmt.Fprintf(e.Stderr, "generating random weights at %s shapes in %s ...\n", name, dir)
				if err := embed.GenerateModel(dir, cfg, 1); err != nil {
					return err
				}
				fmt.Fprintf(e.Stdout, "== %s shapes (%d layers, hidden %d, vocab %d)\n", name, cfg.NumLayers, cfg.HiddenSize, cfg.VocabSize)
				if err := embed.BenchReport(cmd.Context(), dir, e.Stdout); err != nil {
					return err
				}
			}
			return nil
		},
	}
	cmd.Flags().StringVar(&shapes, "shapes", "all", "l12, l6 or all")
	cmd.Flags().BoolVar(&keep, "keep", false, "keep the generated model directories")
	return cmd
}
