package bench

import (
	"context"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"runtime/pprof"
	"time"

	"github.com/holomem/holomem"
	"github.com/holomem/holomem/backend"
	"github.com/holomem/holomem/internal/bench/synth"
	"github.com/holomem/holomem/internal/leaf/cputime"
	"github.com/holomem/holomem/postgres"
	"github.com/holomem/holomem/retrieve"
	"github.com/holomem/holomem/sqlite"
	"github.com/spf13/cobra"
)

func (e *Env) storeCmd() *cobra.Command {
	var sizes []int
	var queries, adds int
	var profile string
	cmd := &cobra.Command{
		Use:   "store",
		Short: "Insert throughput, bytes per fact, recall/probe/reason latency on synthetic facts (no model)",
		Long: `Measures a fresh SQLite store per size. With --db postgres://... each size
also runs on that PostgreSQL database, in a new schema dropped afterwards,
and the two backends print side by side. The CPU columns (process CPU
time per imported fact and per add) hold on a busy machine, where the
rates mostly measure the neighbours. The memory is a warm process's: after
the import it loads the in-memory text index (column "text load", what
serve does at start), then adds and recalls use it.

--cpuprofile PREFIX writes CPU profiles of each size's bulk import,
one-by-one adds and recalls to PREFIX-N-import.pprof, PREFIX-N-add.pprof
and PREFIX-N-recall.pprof
(go tool pprof -top holomem FILE).`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			w := e.Stdout
			pg := ""
			if f := cmd.Flags().Lookup("db"); f != nil && backend.IsRemote(f.Value.String()) {
				pg = f.Value.String()
			}
			fmt.Fprintf(w, "%-9s %-8s %-14s %-14s %-11s %-12s %-12s %-12s %-12s %-14s %-14s %s\n", "backend", "facts", "import/s", "remember/s", "bytes/fact", "recall p50", "recall p99", "probe p50", "reason p50", "import CPU/f", "add CPU/add", "text load")
			for _, n := range sizes {
				if err := benchStore(cmd.Context(), w, n, queries, adds, "", profile); err != nil {
					return err
				}
				if pg != "" {
					if err := benchStore(cmd.Context(), w, n, queries, adds, pg, profile); err != nil {
						return err
					}
				}
			}
			return nil
		},
	}
	cmd.Flags().IntSliceVar(&sizes, "facts", []int{10_000, 100_000}, "store sizes")
	cmd.Flags().IntVar(&queries, "queries", 500, "queries per size")
	cmd.Flags().IntVar(&adds, "adds", 300, "one-by-one adds per size (more give a steadier add CPU and profile)")
	cmd.Flags().StringVar(&profile, "cpuprofile", "", "write CPU profiles of import, add and recall to files starting with this prefix")
	return cmd
}

// benchStore measures one size on a new SQLite file, or on a new schema
// of the PostgreSQL database pg when it is set. A non-empty profile is the
// prefix of the CPU profiles of the import and the adds.
func benchStore(ctx context.Context, w io.Writer, n, queries, adds int, pg, profile string) error {
	var s holomem.Store
	var size func() (int64, error)
	backend := "sqlite"
	if pg != "" {
		backend = "postgres"
		addr, drop, err := postgres.TempSchema(ctx, pg, "holomem_bench")
		if err != nil {
			return err
		}
		defer drop(context.WithoutCancel(ctx))
		ps, err := postgres.Open(ctx, addr)
		if err != nil {
			return err
		}
		defer ps.Close()
		s = ps
		size = func() (int64, error) {
			st, err := ps.Stats(ctx, "")
			if err != nil {
				return 0, err
			}
			return st.SizeBytes, nil
		}
	} else {
		dir, err := os.MkdirTemp("", "holomem-bench")
		if err != nil {
			return err
		}
		defer os.RemoveAll(dir)
		path := filepath.Join(dir, "bench.db")
		ss, err := sqlite.Open(ctx, path)
		if err != nil {
			return err
		}
		defer ss.Close()
		s = ss
		size = func() (int64, error) {
			if err := ss.Checkpoint(ctx); err != nil {
				return 0, err
			}
			st, err := os.Stat(path)
			if err != nil {
				return 0, err
			}
			return st.Size(), nil
		}
	}
	// A warm process: the text index in memory (when the store has a
	// change feed), retrieval counts batched.
	m, err := retrieve.New(s, retrieve.Options{LiveIndex: true, RetrievalFlush: time.Minute})
	if err != nil {
		return err
	}
	defer m.Close()
	stop, err := startProfile(profile, fmt.Sprintf("%s-%d-import", backend, n))
	if err != nil {
		return err
	}
	t0, c0 := time.Now(), cputime.Process()
	err = importSynthetic(ctx, m, n)
	importRate := float64(n) / time.Since(t0).Seconds()
	importCPU := (cputime.Process() - c0) / time.Duration(n)
	stop()
	if err != nil {
		return err
	}

	// Loading the text index is what a server does once at start.
	tw := time.Now()
	if err := m.WarmText(ctx); err != nil {
		return err
	}
	warmCol := "-"
	if m.LiveText() {
		warmCol = ms(time.Since(tw))
	}

	one := max(adds, 1)
	if stop, err = startProfile(profile, fmt.Sprintf("%s-%d-add", backend, n)); err != nil {
		return err
	}
	t0, c0 = time.Now(), cputime.Process()
	for i := range one {
		if _, err = m.Remember(ctx, synth.Fact(9, i)); err != nil {
			break
		}
	}
	rememberRate := float64(one) / time.Since(t0).Seconds()
	rememberCPU := (cputime.Process() - c0) / time.Duration(one)
	stop()
	if err != nil {
		return err
	}

	bytes, err := size()
	if err != nil {
		return err
	}
	perFact := float64(bytes) / float64(n+one)

	recall := make([]time.Duration, 0, queries)
	if stop, err = startProfile(profile, fmt.Sprintf("%s-%d-recall", backend, n)); err != nil {
		return err
	}
	for i := range queries {
		t := time.Now()
		if _, err := m.Recall(ctx, holomem.Query{Text: synth.Query(2, i), NoTouch: true}); err != nil {
			return err
		}
		recall = append(recall, time.Since(t))
	}
	stop()
	people, services := synth.People(), synth.Services()
	var probe, reason []time.Duration
	for i := range min(queries, 100) {
		t := time.Now()
		if _, err := m.Probe(ctx, "", people[i%len(people)], 10); err != nil {
			return err
		}
		probe = append(probe, time.Since(t))
		t = time.Now()
		if _, err := m.Reason(ctx, "", []string{people[i%len(people)], services[i%len(services)]}, 10); err != nil {
			return err
		}
		reason = append(reason, time.Since(t))
	}
	r50, r99 := percentiles(recall)
	p50, _ := percentiles(probe)
	q50, _ := percentiles(reason)
	fmt.Fprintf(w, "%-9s %-8d %-14.0f %-14.0f %-11.0f %-12s %-12s %-12s %-12s %-14s %-14s %s\n", backend, n, importRate, rememberRate, perFact, ms(r50), ms(r99), ms(p50), ms(q50), us(importCPU), ms(rememberCPU), warmCol)
	if ps, ok := s.(*postgres.Store); ok {
		if st := ps.StandbyStats(); st.Standbys > 0 {
			fmt.Fprintf(w, "  %d standby: %d reads on a standby, %d on the primary (%d waited for replay, %d then read the primary)\n",
				st.Standbys, st.StandbyReads, st.PrimaryReads, st.Waits, st.Fallbacks)
		}
	}
	return nil
}

// startProfile starts a CPU profile written to prefix-name.pprof and
// returns the function that stops it; with an empty prefix it does nothing.
func startProfile(prefix, name string) (stop func(), err error) {
	if prefix == "" {
		return func() {}, nil
	}
	f, err := os.Create(prefix + "-" + name + ".pprof")
	if err != nil {
		return nil, err
	}
	if err := pprof.StartCPUProfile(f); err != nil {
		f.Close()
		return nil, err
	}
	return func() {
		pprof.StopCPUProfile()
		f.Close()
	}, nil
}

func us(d time.Duration) string { return fmt.Sprintf("%.0f us", float64(d.Nanoseconds())/1000) }
