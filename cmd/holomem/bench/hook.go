package bench

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"time"

	"github.com/holomem/holomem/internal/synth"
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
			defer closeHook()
			var lat []time.Duration
			for i := range runs {
				t0 := time.Now()
				hctx, cancel := context.WithTimeout(ctx, 2*time.Second)
				err := recall(hctx, synth.Query(5, i))
				cancel()
				if err != nil {
					return err
				}
				lat = append(lat, time.Since(t0))
			}
			p50, p99 := percentiles(lat)
			fmt.Fprintf(e.Stdout, "hook in-process, %d facts, %d prompts: p50 %s  p99 %s\n", n, runs, ms(p50), ms(p99))

			exe, err := os.Executable()
			if err != nil {
				return err
			}
			// Each process's CPU time (user+system, from its rusage) holds
			// on a busy machine; the start-only run is this binary's floor
			// here (runtime and package initialisation, page faults).
			var plat, pcpu, slat, scpu []time.Duration
			for i := range procs {
				ev, _ := json.Marshal(map[string]string{"hook_event_name": "UserPromptSubmit", "prompt": synth.Query(6, i)})
				c := exec.CommandContext(ctx, exe, "--db", db, "--global", "--no-model", "hook", "recall")
				c.Stdin = bytes.NewReader(ev)
				t0 := time.Now()
				if out, err := c.CombinedOutput(); err != nil {
					return fmt.Errorf("hook process: %v: %s", err, out)
				}
				plat = append(plat, time.Since(t0))
				pcpu = append(pcpu, c.ProcessState.UserTime()+c.ProcessState.SystemTime())

				c = exec.CommandContext(ctx, exe, "--version")
				t0 = time.Now()
				if out, err := c.CombinedOutput(); err != nil {
					return fmt.Errorf("version process: %v: %s", err, out)
				}
				slat = append(slat, time.Since(t0))
				scpu = append(scpu, c.ProcessState.UserTime()+c.ProcessState.SystemTime())
			}
			p50, p99 = percentiles(plat)
			c50, _ := percentiles(pcpu)
			fmt.Fprintf(e.Stdout, "hook as a process (start, open, recall, print), %d prompts: p50 %s  p99 %s  CPU p50 %s\n", procs, ms(p50), ms(p99), ms(c50))
			s50, _ := percentiles(slat)
			sc50, _ := percentiles(scpu)
			fmt.Fprintf(e.Stdout, "start only (holomem --version), %d runs: p50 %s  CPU p50 %s\n", procs, ms(s50), ms(sc50))
			return nil
		},
	}
	cmd.Flags().IntVar(&n, "facts", 100_000, "store size")
	cmd.Flags().IntVar(&runs, "runs", 300, "in-process prompts")
	cmd.Flags().IntVar(&procs, "procs", 50, "prompts run as separate processes")
	cmd.Flags().StringVar(&store, "store", "", "keep the synthetic store in this file and reuse it when it exists (default: a temporary file)")
	return cmd
}
