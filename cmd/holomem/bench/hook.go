package bench

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"time"

	"github.com/holomem/holomem/internal/synth"
	"github.com/spf13/cobra"
)

func (e *Env) hookCmd() *cobra.Command {
	var n, runs, procs int
	cmd := &cobra.Command{
		Use:   "hook",
		Short: "Prompt hook latency p50/p99 on a synthetic store, in-process and as a new process per prompt",
		Args:  cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			ctx := cmd.Context()
			dir, err := os.MkdirTemp("", "holomem-bench-hook")
			if err != nil {
				return err
			}
			defer os.RemoveAll(dir)
			db := filepath.Join(dir, "hook.db")
			fmt.Fprintf(e.Stderr, "filling %d facts ...\n", n)
			if err := fillSynthetic(ctx, db, n); err != nil {
				return err
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
			var plat []time.Duration
			for i := range procs {
				ev, _ := json.Marshal(map[string]string{"hook_event_name": "UserPromptSubmit", "prompt": synth.Query(6, i)})
				c := exec.CommandContext(ctx, exe, "--db", db, "--global", "--no-model", "hook", "recall")
				c.Stdin = bytes.NewReader(ev)
				t0 := time.Now()
				if out, err := c.CombinedOutput(); err != nil {
					return fmt.Errorf("hook process: %v: %s", err, out)
				}
				plat = append(plat, time.Since(t0))
			}
			p50, p99 = percentiles(plat)
			fmt.Fprintf(e.Stdout, "hook as a process (start, open, recall, print), %d prompts: p50 %s  p99 %s\n", procs, ms(p50), ms(p99))
			return nil
		},
	}
	cmd.Flags().IntVar(&n, "facts", 100_000, "store size")
	cmd.Flags().IntVar(&runs, "runs", 300, "in-process prompts")
	cmd.Flags().IntVar(&procs, "procs", 50, "prompts run as separate processes")
	return cmd
}
