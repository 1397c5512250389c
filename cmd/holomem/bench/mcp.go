package bench

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"time"

	"github.com/holomem/holomem/internal/bench/synth"
	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/spf13/cobra"
)

func (e *Env) mcpCmd() *cobra.Command {
	var calls int
	cmd := &cobra.Command{
		Use:   "mcp",
		Short: "MCP round trip per tool call over stdio to `holomem mcp` (remember, recall, get)",
		Args:  cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			ctx := cmd.Context()
			dir, err := os.MkdirTemp("", "holomem-bench-mcp")
			if err != nil {
				return err
			}
			defer os.RemoveAll(dir)
			db := filepath.Join(dir, "mcp.db")
			if err := fillSynthetic(ctx, db, 10_000); err != nil {
				return err
			}
			exe, err := os.Executable()
			if err != nil {
				return err
			}
			c := exec.Command(exe, "--db", db, "--global", "--no-model", "mcp")
			cs, err := mcp.NewClient(&mcp.Implementation{Name: "bench", Version: e.Version}, nil).Connect(ctx, &mcp.CommandTransport{Command: c}, nil)
			if err != nil {
				return err
			}
			defer cs.Close()
			tools := []struct {
				name string
				args func(i int) map[string]any
			}{
				{"remember", func(i int) map[string]any { return map[string]any{"content": synth.Fact(7, i).Content} }},
				{"recall", func(i int) map[string]any { return map[string]any{"query": synth.Query(8, i)} }},
				{"get", func(i int) map[string]any { return map[string]any{"id": 1 + i%1000} }},
			}
			fmt.Fprintf(e.Stdout, "MCP over stdio, 10000 facts, %d calls per tool:\n", calls)
			for _, tl := range tools {
				var lat []time.Duration
				for i := range calls {
					t0 := time.Now()
					res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: tl.name, Arguments: tl.args(i)})
					if err != nil {
						return err
					}
					if res.IsError {
						return fmt.Errorf("%s: tool error %v", tl.name, res.Content)
					}
					lat = append(lat, time.Since(t0))
				}
				p50, p99 := percentiles(lat)
				fmt.Fprintf(e.Stdout, "  %-9s p50 %s  p99 %s\n", tl.name, ms(p50), ms(p99))
			}
			return nil
		},
	}
	cmd.Flags().IntVar(&calls, "calls", 200, "calls per tool")
	return cmd
}
