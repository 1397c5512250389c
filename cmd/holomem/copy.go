package main

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"time"

	"github.com/spf13/cobra"

	"github.com/holomem/holomem/backend"
	"github.com/holomem/holomem/index"
	"github.com/holomem/holomem/internal/app/storecopy"
)

func (a *app) copyCmd() *cobra.Command {
	var from, to string
	var batch int
	var noVerify, noGraph bool
	cmd := &cobra.Command{
		Use:   "copy --from SRC --to DST",
		Short: "Copy a whole memory between databases (SQLite <-> PostgreSQL), resumable and verified",
		Long: `Copies every fact (with its vectors, counters and timestamps) and every edge
but the HNSW graph's from one database to another, in transactions of --batch
facts, printing progress. SRC and DST are SQLite files ("sqlite:PATH" or a
path) or postgres:// addresses. Interrupted? Run it again: facts the
destination already holds are recognised, not duplicated. At the end both
sides are counted and checksummed without ids (see internal/app/storecopy), and
a difference is an error. Then the vector index's graphs are built on the
destination for the models the source had graphs of (they hold the source's
ids, so they are built, not copied); --no-graph skips that (run
` + "`holomem graph build`" + ` later).`,
		GroupID: "admin", Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			if from == "" || to == "" {
				return usagef("copy needs --from and --to")
			}
			if from == to {
				return usagef("--from and --to name the same database")
			}
			ctx := cmd.Context()
			if p := sqlitePath(from); backend.IsFile(from) {
				if _, err := os.Stat(p); errors.Is(err, fs.ErrNotExist) {
					return &errNoDatabase{path: p} // copying from it would create it
				}
			}
			src, err := openStore(ctx, from, false)
			if err != nil {
				return fmt.Errorf("open %s: %w", displayAddr(from), err)
			}
			defer src.Close()
			dst, err := openStore(ctx, to, false)
			if err != nil {
				return fmt.Errorf("open %s: %w", displayAddr(to), err)
			}
			defer dst.Close()
			var progress func(storecopy.Progress)
			if !a.quiet {
				progress = func(p storecopy.Progress) { printCopyProgress(a.stderr, p) }
			}
			rep, err := storecopy.Copy(ctx, src, dst, storecopy.Options{Batch: batch, Progress: progress})
			if err != nil {
				return fmt.Errorf("%w (run the same command again to resume)", err)
			}
			out := struct {
				*storecopy.Report
				Source      *storecopy.Sum         `json:"source,omitempty"`
				Destination *storecopy.Sum         `json:"destination,omitempty"`
				Verified    bool                   `json:"verified"`
				Graphs      []index.NamespaceBuild `json:"graphs,omitempty"`
			}{Report: rep}
			if !noVerify {
				if out.Source, err = storecopy.Checksum(ctx, src); err != nil {
					return err
				}
				if out.Destination, err = storecopy.Checksum(ctx, dst); err != nil {
					return err
				}
				out.Verified = *out.Source == *out.Destination
			}
			verifyErr := error(nil)
			if !noVerify && !out.Verified {
				verifyErr = fmt.Errorf("copy: verification failed: the destination differs from the source (did it hold other facts before?)")
			}
			if !noGraph && verifyErr == nil {
				bar := a.progress()
				out.Graphs, err = storecopy.BuildGraphs(ctx, src, dst, bar.Update)
				bar.Done()
				if err != nil {
					return fmt.Errorf("copy: the facts and edges are copied; %w (run `holomem graph build` on the destination)", err)
				}
			}
			err = a.out(out, func(w io.Writer) {
				fmt.Fprintf(w, "copied %d facts (%d new) and %d edges (%d new); %d similar_to edges of the vector index left out\n",
					rep.Facts, rep.Created, rep.Edges, rep.EdgesCreated, rep.SkippedDerived)
				if out.Source != nil {
					fmt.Fprintf(w, "source:      %d facts, %d edges, sha256 %s\n", out.Source.Facts, out.Source.Edges, out.Source.SHA256)
					fmt.Fprintf(w, "destination: %d facts, %d edges, sha256 %s\n", out.Destination.Facts, out.Destination.Edges, out.Destination.SHA256)
				}
				for _, g := range out.Graphs {
					if g.Skipped == "" {
						fmt.Fprintf(w, "graph of %s rebuilt on the destination: %d vectors, %d links\n", g.Namespace, g.Vectors, g.Edges)
					}
				}
				if noGraph {
					fmt.Fprintln(w, "graphs not built (--no-graph): run `holomem graph build` on the destination")
				}
			})
			if err != nil {
				return err
			}
			return verifyErr
		},
	}
	f := cmd.Flags()
	f.StringVar(&from, "from", "", "source database (sqlite:PATH, a file path, or postgres://...)")
	f.StringVar(&to, "to", "", "destination database (created if needed)")
	f.IntVar(&batch, "batch", 1000, "facts per transaction")
	f.BoolVar(&noVerify, "no-verify", false, "skip the final count and checksum")
	f.BoolVar(&noGraph, "no-graph", false, "do not build the vector index's graphs on the destination")
	return cmd
}

func printCopyProgress(w io.Writer, p storecopy.Progress) {
	rate := float64(p.Facts) / max(p.Elapsed.Seconds(), 1e-9)
	fmt.Fprintf(w, "\rcopy: %d/%d facts (%d new), %d edges, %.0f facts/s, %s", p.Facts, p.TotalFacts, p.Created, p.Edges, rate, p.Elapsed.Round(time.Second))
	if p.Done {
		fmt.Fprintln(w)
	}
}
