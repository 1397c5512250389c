package bench

import (
	"github.com/holomem/holomem/internal/bench/annbench"
	"github.com/spf13/cobra"
)

func (e *Env) annCmd() *cobra.Command {
	var o annbench.Options
	var sweep string
	cmd := &cobra.Command{
		Use:   "ann",
		Short: "HNSW vs exact scans: build time, recall@10, p50/p99 latency, RSS, bytes/vector",
		Long: `Synthetic unit vectors (--dist clustered|uniform, --n, --dim) or standard .fvecs
files (--base, --queries-file), so the same data can be given to other engines.`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			if sweep != "" {
				ef, err := annbench.ParseInts(sweep)
				if err != nil {
					return e.Usage("--ef-sweep: %v", err)
				}
				o.EfSweep = ef
			}
			if !e.Quiet {
				o.Log = e.Stderr
			}
			return annbench.Run(cmd.Context(), o, e.Stdout)
		},
	}
	f := cmd.Flags()
	f.IntVar(&o.N, "n", annbench.DefaultN, "base vectors (synthetic)")
	f.IntVar(&o.Dim, "dim", 384, "dimension (synthetic)")
	f.IntVar(&o.Queries, "queries", 200, "queries")
	f.Uint64Var(&o.Seed, "seed", 1, "data seed")
	f.StringVar(&o.Dist, "dist", "clustered", "clustered or uniform")
	f.StringVar(&o.BaseFile, "base", "", ".fvecs file of base vectors")
	f.StringVar(&o.QueryFile, "queries-file", "", ".fvecs file of queries")
	f.IntVar(&o.M, "m", 0, "HNSW M (default 16)")
	f.IntVar(&o.EfConstruction, "ef-construction", 0, "HNSW efConstruction (default 200)")
	f.IntVar(&o.EfSearch, "ef", 0, "HNSW ef at search (default 64)")
	f.StringVar(&sweep, "ef-sweep", "", "comma-separated ef values to sweep")
	f.IntVar(&o.Workers, "workers", 0, "goroutines for build and exact scans")
	return cmd
}
