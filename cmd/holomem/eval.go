package main

import (
	"errors"
	"fmt"
	"io"
	"log/slog"
	"os"
	"path/filepath"
	"time"

	"github.com/spf13/cobra"

	"github.com/holomem/holomem"
	"github.com/holomem/holomem/eval"
	"github.com/holomem/holomem/retrieve"
	"github.com/holomem/holomem/sqlite"
)

func (a *app) evalCmd() *cobra.Command {
	var (
		locomo, beir    string
		now             string
		perQuery        bool
		weights         []string
		ks              []int
		undated, ablate bool
		noHRR, live     bool
		factCategory    string
	)
	cmd := &cobra.Command{
		Use:   "eval [FILE.jsonl]",
		Short: "Measure recall quality on labelled data, next to plain BM25",
		Long: `eval loads labelled facts into a fresh temporary database (never --db), asks
every query through recall, and prints recall@k, hit@k, MRR and nDCG@k per
category and overall with latency, next to a plain BM25 baseline computed in
the same run. FILE is JSONL (see the eval package doc and docs/evaluation.md);
--locomo reads LoCoMo (locomo10.json, or a directory with turns.jsonl and
qa.jsonl); --beir reads a BEIR-format directory (corpus.jsonl, queries.jsonl,
qrels/test.tsv), stores each document as one fact (title on the first line)
of category "doc", and compares nDCG@10 (cut-offs 10 and 100, MRR@10 unless
-k says otherwise). Facts keep their times unless --undated; decay counts
from --now. --per-query adds every query's nDCG and first relevant rank.`,
		GroupID: "admin",
		Args:    cobra.MaximumNArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			ctx := cmd.Context()
			var d *eval.Dataset
			var err error
			cfg := eval.Config{Ks: ks, Undated: undated, PerQuery: perQuery}
			switch {
			case locomo != "" && beir == "" && len(args) == 0:
				d, err = eval.ReadLoCoMo(locomo)
			case beir != "" && locomo == "" && len(args) == 0:
				d, err = eval.ReadBEIR(beir)
				cfg.Metric, cfg.MRRK = eval.MetricNDCG, 10
				cfg.Baselines = []eval.BM25Params{eval.LuceneBM25, eval.ClassicBM25}
				if !cmd.Flags().Changed("k") {
					cfg.Ks = []int{10, 100}
				}
			case locomo == "" && beir == "" && len(args) == 1:
				var f *os.File
				if f, err = os.Open(args[0]); err != nil {
					return fmt.Errorf("eval: %w", err)
				}
				d, err = eval.ReadJSONL(f, args[0])
				f.Close()
			default:
				return usagef("eval takes one JSONL file, --locomo PATH or --beir DIR")
			}
			if err != nil {
				return err
			}
			if factCategory != "" {
				for i := range d.Facts {
					d.Facts[i].Category = factCategory
				}
			}
			clock := time.Now
			if now != "" {
				t, err := time.Parse(time.RFC3339, now)
				if err != nil {
					return usagef("--now %q: want RFC 3339, e.g. 2024-01-01T00:00:00Z", now)
				}
				clock = func() time.Time { return t }
			}
			systems := []eval.System{{Name: "hybrid"}}
			for _, ws := range weights {
				w, err := parseWeights(ws)
				if err != nil {
					return err
				}
				systems = append(systems, eval.System{Name: ws, Weights: &w})
			}
			opts := retrieve.Options{
				Logger:       slog.New(slog.NewTextHandler(a.stderr, &slog.HandlerOptions{Level: slog.LevelWarn})),
				DisableGraph: true, HalfLife: a.halfLife, DisableHRR: noHRR, Now: clock,
				DecayFloor: a.decayFloor, LiveIndex: live,
			}
			if emb, err := a.embedder(); err == nil {
				opts.Embedder = emb
			} else if !errors.Is(err, holomem.ErrNoEmbedder) {
				return err
			}
			if ablate {
				// Each channel that runs on every query, alone.
				for _, c := range holomem.Channels() {
					if c.Occasional || (c.NeedsHRR && noHRR) || (c.NeedsModel && opts.Embedder == nil) {
						continue
					}
					systems = append(systems, eval.System{Name: string(c.Name), Weights: &holomem.Weights{c.Name: 1}})
				}
			}
			dir, err := os.MkdirTemp("", "holomem-eval-")
			if err != nil {
				return fmt.Errorf("eval: %w", err)
			}
			defer os.RemoveAll(dir)
			s, err := sqlite.Open(ctx, filepath.Join(dir, "eval.db"))
			if err != nil {
				return fmt.Errorf("eval: %w", err)
			}
			defer s.Close()
			m, err := retrieve.New(s, opts)
			if err != nil {
				return err
			}
			defer m.Close()
			if err := m.WarmText(ctx); err != nil {
				return err
			}
			cfg.Systems = systems
			cfg.Progress = a.progress().Update
			cfg.Now = clock
			rep, err := eval.Run(ctx, m, d, cfg)
			if err != nil {
				return err
			}
			return a.out(rep, func(w io.Writer) { rep.WriteText(w) })
		},
	}
	fl := cmd.Flags()
	fl.StringVar(&locomo, "locomo", "", "read LoCoMo: locomo10.json, or a directory with turns.jsonl and qa.jsonl")
	fl.StringVar(&beir, "beir", "", "read a BEIR-format directory: corpus.jsonl, queries.jsonl, qrels/test.tsv")
	fl.BoolVar(&perQuery, "per-query", false, "also print every query's nDCG and rank of its first relevant fact, per system")
	fl.IntSliceVarP(&ks, "k", "k", []int{5, 10, 25}, "cut-offs (--beir: 10,100)")
	fl.BoolVar(&undated, "undated", false, "store facts without their times")
	fl.StringVar(&now, "now", "", "decay's clock, RFC 3339 (default: the real time)")
	fl.StringArrayVar(&weights, "weights", nil, "also measure these channel weights, e.g. fts=0.5,jaccard=0.3,hrr=0.2 (repeatable)")
	fl.BoolVar(&ablate, "ablate", false, "also measure each channel alone")
	fl.StringVar(&factCategory, "fact-category", "", "store every fact under this category (decay's half-life depends on it)")
	fl.BoolVar(&noHRR, "no-hrr", false, "run without the hrr channel")
	fl.BoolVar(&live, "live", false, "recall as serve and mcp do, from the in-memory text index (default: as a one-shot command, from the store's full-text search)")
	return cmd
}

// parseWeights reads "fts=0.5,jaccard=0.3,hrr=0.2,semantic=0,ppr=0".
func parseWeights(s string) (holomem.Weights, error) {
	w, err := holomem.ParseWeights(s)
	if err != nil {
		return nil, usagef("--weights: %v", err)
	}
	return w, nil
}
