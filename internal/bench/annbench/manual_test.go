package annbench_test

import (
	"flag"
	"os"
	"testing"

	"github.com/holomem/holomem/internal/bench/annbench"
)

// Flags for TestManual, which runs a full benchmark until `holomem bench
// ann` exists in cmd/holomem:
//
//	go test ./internal/annbench -run TestManual -timeout 0 -args -ann.n=100000 -ann.dist=uniform
var (
	annRun     = flag.Bool("ann", false, "run TestManual (implied by any other -ann.* flag)")
	annN       = flag.Int("ann.n", 0, "base vectors (default 10000)")
	annQ       = flag.Int("ann.q", 0, "queries (default 200)")
	annDist    = flag.String("ann.dist", "", "clustered or uniform")
	annSeed    = flag.Uint64("ann.seed", 0, "data seed")
	annEf      = flag.Int("ann.ef", 0, "efSearch (default 64)")
	annEfC     = flag.Int("ann.efc", 0, "efConstruction (default 200)")
	annM       = flag.Int("ann.m", 0, "M (default 16)")
	annSweep   = flag.String("ann.sweep", "", "comma-separated ef values to sweep")
	annWorkers = flag.Int("ann.workers", 0, "build and scan goroutines")
	annBase    = flag.String("ann.base", "", "base .fvecs file")
	annQuery   = flag.String("ann.query", "", "query .fvecs file")
)

func TestManual(t *testing.T) {
	set := false
	flag.Visit(func(f *flag.Flag) {
		if len(f.Name) > 3 && f.Name[:3] == "ann" {
			set = true
		}
	})
	if !set && !*annRun {
		t.Skip("manual benchmark; pass -args -ann.n=... to run")
	}
	sweep, err := annbench.ParseInts(*annSweep)
	if err != nil {
		t.Fatal(err)
	}
	opt := annbench.Options{
		N: *annN, Queries: *annQ, Dist: *annDist, Seed: *annSeed,
		EfSearch: *annEf, EfConstruction: *annEfC, M: *annM, EfSweep: sweep,
		Workers: *annWorkers, BaseFile: *annBase, QueryFile: *annQuery,
		Log: os.Stderr,
	}
	if err := annbench.Run(t.Context(), opt, os.Stdout); err != nil {
		t.Fatal(err)
	}
}
