package bench

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	"github.com/holomem/holomem/internal/bench/synth"
	"github.com/spf13/cobra"
)

func (e *Env) serveCmd() *cobra.Command {
	var n, queries, adds int
	cmd := &cobra.Command{
		Use:   "serve",
		Short: "Memory (RSS) and HTTP recall/add latency of `holomem serve` on a synthetic store (no model)",
		Long: `Fills a new store with --facts synthetic facts, starts
` + "`holomem --no-model serve`" + ` on it (a new process on a free loopback
port), then reads the server's resident memory from /proc (VmRSS after
start, after the recalls and after the adds, and the peak VmHWM) around
--queries POST /api/recall and --adds POST /api/facts (with write-time
hygiene). Linux only for the memory figures.`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			ctx := cmd.Context()
			dir, err := os.MkdirTemp("", "holomem-bench-serve")
			if err != nil {
				return err
			}
			defer os.RemoveAll(dir)
			db := filepath.Join(dir, "serve.db")
			fmt.Fprintf(e.Stderr, "filling %d facts ...\n", n)
			if err := fillSynthetic(ctx, db, n); err != nil {
				return err
			}
			exe, err := os.Executable()
			if err != nil {
				return err
			}
			sctx, stop := context.WithCancel(ctx)
			defer stop()
			c := exec.CommandContext(sctx, exe, "--db", db, "--global", "--no-model", "serve", "--addr", "127.0.0.1:0")
			c.Stderr = io.Discard
			out, err := c.StdoutPipe()
			if err != nil {
				return err
			}
			if err := c.Start(); err != nil {
				return err
			}
			defer func() {
				stop()
				_ = c.Wait()
			}()
			base, err := serverAddress(out)
			if err != nil {
				return err
			}
			go func() { _, _ = io.Copy(io.Discard, out) }()
			pid := c.Process.Pid
			rssStart := procStatusKB(pid, "VmRSS")

			post := func(path string, body any) error {
				b, err := json.Marshal(body)
				if err != nil {
					return err
				}
				req, err := http.NewRequestWithContext(ctx, http.MethodPost, base+path, bytes.NewReader(b))
				if err != nil {
					return err
				}
				req.Header.Set("Content-Type", "application/json")
				resp, err := http.DefaultClient.Do(req)
				if err != nil {
					return err
				}
				defer resp.Body.Close()
				if _, err := io.Copy(io.Discard, resp.Body); err != nil {
					return err
				}
				if resp.StatusCode/100 != 2 {
					return fmt.Errorf("POST %s: %s", path, resp.Status)
				}
				return nil
			}
			var lat []time.Duration
			for i := range queries {
				t0 := time.Now()
				if err := post("/api/recall", map[string]any{"query": synth.Query(2, i)}); err != nil {
					return err
				}
				lat = append(lat, time.Since(t0))
			}
			rssRecall := procStatusKB(pid, "VmRSS")
			t0 := time.Now()
			for i := range adds {
				if err := post("/api/facts", map[string]any{"content": synth.Fact(9, i).Content}); err != nil {
					return err
				}
			}
			addRate := float64(adds) / time.Since(t0).Seconds()
			rssAdd, hwm := procStatusKB(pid, "VmRSS"), procStatusKB(pid, "VmHWM")
			p50, p99 := percentiles(lat)
			fmt.Fprintf(e.Stdout, "serve, %d facts, no model: recall p50 %s p99 %s (%d queries over HTTP); add %.0f/s (%d, with hygiene)\n", n, ms(p50), ms(p99), queries, addRate, adds)
			fmt.Fprintf(e.Stdout, "serve RSS: %s after start, %s after recalls, %s after adds; peak (VmHWM) %s\n", mib(rssStart), mib(rssRecall), mib(rssAdd), mib(hwm))
			return nil
		},
	}
	cmd.Flags().IntVar(&n, "facts", 100_000, "store size")
	cmd.Flags().IntVar(&queries, "queries", 200, "recalls over HTTP")
	cmd.Flags().IntVar(&adds, "adds", 200, "adds over HTTP")
	return cmd
}

// serverAddress reads `holomem serve`'s first line for its base URL.
func serverAddress(out io.Reader) (string, error) {
	line, err := bufio.NewReader(out).ReadString('\n')
	if err != nil {
		return "", fmt.Errorf("serve did not start: %w", err)
	}
	_, rest, ok := strings.Cut(line, "http://")
	if !ok {
		return "", fmt.Errorf("serve said %q, want its address", line)
	}
	addr, _, _ := strings.Cut(rest, " ")
	return "http://" + addr, nil
}

// procStatusKB reads a "kB" field of /proc/PID/status; -1 when it cannot.
func procStatusKB(pid int, field string) int64 {
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/status", pid))
	if err != nil {
		return -1
	}
	for _, line := range strings.Split(string(b), "\n") {
		if v, ok := strings.CutPrefix(line, field+":"); ok {
			kb, err := strconv.ParseInt(strings.TrimSuffix(strings.TrimSpace(v), " kB"), 10, 64)
			if err != nil {
				return -1
			}
			return kb
		}
	}
	return -1
}

func mib(kb int64) string {
	if kb < 0 {
		return "n/a"
	}
	return fmt.Sprintf("%.1f MiB", float64(kb)/1024)
}
