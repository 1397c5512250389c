package bench

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"time"

	"github.com/holomem/holomem/internal/bench/synth"
	"github.com/spf13/cobra"
)

func (e *Env) hookCmd() *cobra.Command {
	var n, runs, procs int
	var store string
	cmd := &cobra.Command{
		Use:   "hook",
		Short: "Prompt hook latency p50/p99 on a synthetic store, in-process and as a new process per prompt",
		Args:  cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			ctx := cmd.Context()
			db := store
			if db == "" {
				dir, err := os.MkdirTemp("", "holomem-bench-hook")
				if err != nil {
					return err
				}
				defer os.RemoveAll(dir)
				db = filepath.Join(dir, "hook.db")
			}
			if _, err := os.Stat(db); errors.Is(err, fs.ErrNotExist) {
				fmt.Fprintf(e.Stderr, "filling %d facts ...\n", n)
				if err := fillSynthetic(ctx, db, n); err != nil {
					return err
				}
			} else if err != nil {
				return err
			} else {
				fmt.Fprintf(e.Stderr, "using the store in %s as it is (--facts does not apply)\n", db)
			}
			recall, closeHook, err := e.Hook(ctx, db)
			if err != nil {
				return err
			}
			var lat []time.Duration
			for i := range runs {
				t0 := time.Now()
				hctx, cancel := context.WithTimeout(ctx, 2*time.Second)
				err := recall(hctx, synth.Query(5, i))
				cancel()
				if err != nil {
					closeHook()
					return err
				}
				lat = append(lat, time.Since(t0))
			}
			// The processes below find the store closed, as a hook does
			// when nothing else runs: each one creates the WAL and
			// checkpoints it on exit.
			closeHook()
			p50, p99 := percentiles(lat)
			fmt.Fprintf(e.Stdout, "hook in-process, %d facts, %d prompts: p50 %s  p99 %s\n", n, runs, ms(p50), ms(p99))

			exe, err := os.Executable()
			if err != nil {
				return err
			}
			// Each process's CPU time (user+system, from its rusage) holds
			// on a busy machine; the start-only run is this binary's floor
			// here (runtime and package initialisation, page faults).
			alone, err := hookProcesses(ctx, exe, db, procs, "--standalone")
			if err != nil {
				return err
			}
			alone.print(e.Stdout, fmt.Sprintf("hook as a process, no server (start, open, recall, print), %d prompts", procs))
			stop, err := e.HookServer(ctx, db)
			if err != nil {
				return err
			}
			served, err := hookProcesses(ctx, exe, db, procs)
			stop()
			if err != nil {
				return err
			}
			served.print(e.Stdout, fmt.Sprintf("hook as a process, server running (start, ask, print), %d prompts", procs))
			var start procTimes
			for range procs {
				c := exec.CommandContext(ctx, exe, "--version")
				t0 := time.Now()
				if out, err := c.CombinedOutput(); err != nil {
					return fmt.Errorf("version process: %v: %s", err, out)
				}
				start.add(time.Since(t0), c.ProcessState)
			}
			start.print(e.Stdout, fmt.Sprintf("start only (holomem --version), %d runs", procs))
			return nil
		},
	}
	cmd.Flags().IntVar(&n, "facts", 100_000, "store size")
	cmd.Flags().IntVar(&runs, "runs", 300, "in-process prompts")
	cmd.Flags().IntVar(&procs, "procs", 50, "prompts run as separate processes")
	cmd.Flags().StringVar(&store, "store", "", "keep the synthetic store in this file and reuse it when it exists (default: a temporary file)")
	return cmd
}

// procTimes collects the wall and CPU times of processes.
type procTimes struct{ wall, cpu []time.Duration }

func (p *procTimes) add(wall time.Duration, ps *os.ProcessState) {
	p.wall = append(p.wall, wall)
	p.cpu = append(p.cpu, ps.UserTime()+ps.SystemTime())
}

func (p *procTimes) print(w io.Writer, what string) {
	p50, p99 := percentiles(p.wall)
	c50, _ := percentiles(p.cpu)
	fmt.Fprintf(w, "%s: p50 %s  p99 %s  CPU p50 %s\n", what, ms(p50), ms(p99), ms(c50))
}

// hookProcesses runs the hook as a new process per prompt, with extra
// flags, and times each.
func hookProcesses(ctx context.Context, exe, db string, procs int, extra ...string) (procTimes, error) {
	var t procTimes
	for i := range procs {
		ev, _ := json.Marshal(map[string]string{"hook_event_name": "UserPromptSubmit", "prompt": synth.Query(6, i)})
		args := append([]string{"--db", db, "--global", "--no-model", "hook", "recall"}, extra...)
		c := exec.CommandContext(ctx, exe, args...)
		c.Stdin = bytes.NewReader(ev)
		t0 := time.Now()
		out, err := c.CombinedOutput()
		if err != nil {
			return t, fmt.Errorf("hook process: %v: %s", err, out)
		}
		if !bytes.Contains(out, []byte("<holomem-memory>")) {
			return t, fmt.Errorf("hook process printed no memory: %q", out)
		}
		t.add(time.Since(t0), c.ProcessState)
	}
	return t, nil
}
