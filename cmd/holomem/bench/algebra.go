package bench

import (
	"context"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"time"

	"github.com/spf13/cobra"

	"github.com/holomem/holomem"
	"github.com/holomem/holomem/internal/bench/synth"
	"github.com/holomem/holomem/internal/leaf/cputime"
	"github.com/holomem/holomem/retrieve"
	"github.com/holomem/holomem/sqlite"
)

func (e *Env) algebraCmd() *cobra.Command {
	var sizes []int
	var queries int
	var dir, profile string
	cmd := &cobra.Command{
		Use:   "algebra",
		Short: "probe / reason / related latency on synthetic stores of several sizes (no model)",
		Long: `Fills a SQLite store per size with the synthetic facts of "bench store"
(bulk import), adds 100 facts naming rare entities (one fact each), then
times, in one warm process:

  first     a fresh process's first probe(person): its candidates' vectors
            are read by id when there are at most 2048 of them (a person's
            at 10k facts), else every vector of the namespace is loaded
  probe     probe(person): each of the 20 people opens about 4.5% of the facts
  rare      probe(rare name): an entity with one fact
  reason    reason(person, service)
  related   related(person)

Each column gives the p50 wall time and, in brackets, the mean process CPU
time per call, which a busy machine moves much less.

Each probe, reason and related scores the facts its entities' postings
name (links, and mentions the full-text index lists), so its cost follows
the entity's facts, not the store's: the people's columns grow with the
store because each person's facts do.

--dir keeps the stores (algebra-N.db) and reuses them on the next run, so
two builds can be compared without importing twice. --cpuprofile PREFIX
writes a CPU profile of each size's calls to PREFIX-algebra-N.pprof.`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			w := e.Stdout
			fmt.Fprintf(w, "%-8s %-11s %-22s %-22s %-22s %-22s\n", "facts", "first", "probe p50 (CPU)", "rare p50 (CPU)", "reason p50 (CPU)", "related p50 (CPU)")
			for _, n := range sizes {
				if err := benchAlgebra(cmd.Context(), w, e.Stderr, n, queries, dir, profile, e.Quiet); err != nil {
					return err
				}
			}
			return nil
		},
	}
	cmd.Flags().IntSliceVar(&sizes, "facts", []int{1_000, 10_000, 100_000}, "store sizes")
	cmd.Flags().IntVar(&queries, "queries", 100, "calls of each kind per size")
	cmd.Flags().StringVar(&profile, "cpuprofile", "", "write CPU profiles of the calls to files starting with this prefix")
	cmd.Flags().StringVar(&dir, "dir", "", "keep the stores in this directory and reuse them (default: a temporary one)")
	return cmd
}

// rareAlgebraFacts is how many facts with a rare entity of their own the
// algebra scenario adds after the import.
const rareAlgebraFacts = 100

func rareAlgebraName(i int) string { return fmt.Sprintf("Zorvald%03d", i) }

func benchAlgebra(ctx context.Context, w, progress io.Writer, n, queries int, dir, profile string, quiet bool) error {
	if dir == "" {
		tmp, err := os.MkdirTemp("", "holomem-bench-algebra")
		if err != nil {
			return err
		}
		defer os.RemoveAll(tmp)
		dir = tmp
	}
	path := filepath.Join(dir, fmt.Sprintf("algebra-%d.db", n))
	_, statErr := os.Stat(path)
	s, err := sqlite.Open(ctx, path)
	if err != nil {
		return err
	}
	defer s.Close()
	m, err := retrieve.New(s, retrieve.Options{})
	if err != nil {
		return err
	}
	defer m.Close()
	if os.IsNotExist(statErr) {
		if !quiet {
			fmt.Fprintf(progress, "algebra: importing %d synthetic facts into %s\n", n, path)
		}
		if err := importSynthetic(ctx, m, n); err != nil {
			return err
		}
		for i := range rareAlgebraFacts {
			f := &holomem.Fact{Content: fmt.Sprintf("The %s migration was signed off by %s.", synth.Services()[i%20], rareAlgebraName(i))}
			if _, err := m.Remember(ctx, f); err != nil {
				return err
			}
		}
	}
	people, services := synth.People(), synth.Services()
	t := time.Now()
	if _, err := m.Probe(ctx, "", people[0], 10); err != nil {
		return err
	}
	first := time.Since(t)
	stop, err := startProfile(profile, fmt.Sprintf("algebra-%d", n))
	if err != nil {
		return err
	}
	defer stop()
	var probe, rare, reason, related []time.Duration
	cpu := map[*[]time.Duration]time.Duration{}
	timed := func(into *[]time.Duration, fn func() error) error {
		t, c := time.Now(), cputime.Process()
		if err := fn(); err != nil {
			return err
		}
		*into = append(*into, time.Since(t))
		cpu[into] += cputime.Process() - c
		return nil
	}
	col := func(s *[]time.Duration) string {
		mean := cpu[s] / time.Duration(max(1, len(*s)))
		p50, _ := percentiles(*s)
		return ms(p50) + " (" + ms(mean) + ")"
	}
	for i := range queries {
		p, sv := people[i%len(people)], services[(i/len(people)+i)%len(services)]
		err := timed(&probe, func() error { _, err := m.Probe(ctx, "", p, 10); return err })
		if err == nil {
			err = timed(&rare, func() error { _, err := m.Probe(ctx, "", rareAlgebraName(i%rareAlgebraFacts), 10); return err })
		}
		if err == nil {
			err = timed(&reason, func() error { _, err := m.Reason(ctx, "", []string{p, sv}, 10); return err })
		}
		if err == nil {
			err = timed(&related, func() error { _, err := m.Related(ctx, "", p, 10); return err })
		}
		if err != nil {
			return err
		}
	}
	fmt.Fprintf(w, "%-8d %-11s %-22s %-22s %-22s %-22s\n", n, ms(first), col(&probe), col(&rare), col(&reason), col(&related))
	return nil
}
