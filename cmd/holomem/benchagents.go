package main

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/spf13/cobra"

	"github.com/holomem/holomem"
	"github.com/holomem/holomem/internal/synth"
	"github.com/holomem/holomem/retrieve"
	"github.com/holomem/holomem/sqlite"
)

// fillSynthetic creates a store at path with n synthetic facts (no model).
func fillSynthetic(ctx context.Context, path string, n int) error {
	s, err := sqlite.Open(ctx, path)
	if err != nil {
		return err
	}
	defer s.Close()
	m, err := retrieve.New(s, retrieve.Options{})
	if err != nil {
		return err
	}
	return importSynthetic(ctx, m, n)
}

// importSynthetic imports synthetic facts 0..n-1 of seed 1 in batches of 1000.
func importSynthetic(ctx context.Context, m *retrieve.Memory, n int) error {
	const batch = 1000
	for start := 0; start < n; start += batch {
		facts := make([]*holomem.Fact, 0, batch)
		for i := start; i < min(n, start+batch); i++ {
			facts = append(facts, synth.Fact(1, i))
		}
		if _, err := m.Import(ctx, facts); err != nil {
			return err
		}
	}
	return nil
}

func (a *app) benchHookCmd() *cobra.Command {
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
			fmt.Fprintf(a.stderr, "filling %d facts ...\n", n)
			if err := fillSynthetic(ctx, db, n); err != nil {
				return err
			}
			h := newApp(strings.NewReader(""), &bytes.Buffer{}, &bytes.Buffer{})
			h.dbPath, h.global, h.noModel = db, true, true
			defer h.close()
			var lat []time.Duration
			for i := range runs {
				t0 := time.Now()
				hctx, cancel := context.WithTimeout(ctx, 2*time.Second)
				_, _, err := h.hookRecall(hctx, synth.Query(5, i), 5, 600, 0.05)
				cancel()
				if err != nil {
					return err
				}
				lat = append(lat, time.Since(t0))
			}
			p50, p99 := percentiles(lat)
			fmt.Fprintf(a.stdout, "hook in-process, %d facts, %d prompts: p50 %s  p99 %s\n", n, runs, ms(p50), ms(p99))

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
			fmt.Fprintf(a.stdout, "hook as a process (start, open, recall, print), %d prompts: p50 %s  p99 %s\n", procs, ms(p50), ms(p99))
			return nil
		},
	}
	cmd.Flags().IntVar(&n, "facts", 100_000, "store size")
	cmd.Flags().IntVar(&runs, "runs", 300, "in-process prompts")
	cmd.Flags().IntVar(&procs, "procs", 50, "prompts run as separate processes")
	return cmd
}

func (a *app) benchMCPCmd() *cobra.Command {
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
			cs, err := mcp.NewClient(&mcp.Implementation{Name: "bench", Version: version}, nil).Connect(ctx, &mcp.CommandTransport{Command: c}, nil)
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
			fmt.Fprintf(a.stdout, "MCP over stdio, 10000 facts, %d calls per tool:\n", calls)
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
				fmt.Fprintf(a.stdout, "  %-9s p50 %s  p99 %s\n", tl.name, ms(p50), ms(p99))
			}
			return nil
		},
	}
	cmd.Flags().IntVar(&calls, "calls", 200, "calls per tool")
	return cmd
}

func (a *app) benchImportCmd() *cobra.Command {
	var records, commits int
	cmd := &cobra.Command{
		Use:   "import",
		Short: "Import throughput (records/s, end to end into the store) for the github and git importers",
		Args:  cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			ctx := cmd.Context()
			dir, err := os.MkdirTemp("", "holomem-bench-import")
			if err != nil {
				return err
			}
			defer os.RemoveAll(dir)
			// GitHub: half issues, half PRs that close them.
			var items []map[string]any
			for i := range records {
				n := i + 1
				it := map[string]any{"number": n, "title": synth.Fact(11, i).Content, "body": synth.Fact(12, i).Content,
					"state": "CLOSED", "url": fmt.Sprintf("https://github.com/acme/app/issues/%d", n), "createdAt": "2026-01-02T10:00:00Z"}
				if i%2 == 1 {
					it["url"] = fmt.Sprintf("https://github.com/acme/app/pull/%d", n)
					it["body"] = fmt.Sprintf("Fixes #%d. %s", n-1, it["body"])
					it["headRefName"] = fmt.Sprintf("fix/%d-bug", n-1)
				}
				items = append(items, it)
			}
			ghPath := filepath.Join(dir, "gh.json")
			b, _ := json.Marshal(items)
			if err := os.WriteFile(ghPath, b, 0o600); err != nil {
				return err
			}
			imp := newApp(strings.NewReader(""), &bytes.Buffer{}, &bytes.Buffer{})
			imp.dbPath, imp.global, imp.noModel, imp.quiet = filepath.Join(dir, "gh.db"), true, true, true
			defer imp.close()
			t0 := time.Now()
			rep, err := imp.runImport(ctx, "github", ghPath, "acme/app", "", false)
			if err != nil {
				return err
			}
			el := time.Since(t0)
			fmt.Fprintf(a.stdout, "github: %d records, %d causal edges in %s: %.0f records/s\n", rep.Records, rep.Edges, el.Round(time.Millisecond), float64(rep.Records)/el.Seconds())

			repo := filepath.Join(dir, "repo")
			if err := makeGitRepo(ctx, repo, commits); err != nil {
				return err
			}
			g := newApp(strings.NewReader(""), &bytes.Buffer{}, &bytes.Buffer{})
			g.dbPath, g.global, g.noModel, g.quiet = filepath.Join(dir, "git.db"), true, true, true
			defer g.close()
			t0 = time.Now()
			rep, err = g.runImport(ctx, "git", repo, "", "", false)
			if err != nil {
				return err
			}
			el = time.Since(t0)
			fmt.Fprintf(a.stdout, "git: %d commits, %d edges in %s: %.0f records/s\n", rep.Records, rep.Edges, el.Round(time.Millisecond), float64(rep.Records)/el.Seconds())
			return nil
		},
	}
	cmd.Flags().IntVar(&records, "records", 10_000, "github issues and PRs")
	cmd.Flags().IntVar(&commits, "commits", 2_000, "git commits")
	return cmd
}

// makeGitRepo creates a repository with n commits quickly via git fast-import.
func makeGitRepo(ctx context.Context, dir string, n int) error {
	if out, err := exec.CommandContext(ctx, "git", "init", "-q", dir).CombinedOutput(); err != nil {
		return fmt.Errorf("git init: %v: %s", err, out)
	}
	var b bytes.Buffer
	for i := range n {
		msg := synth.Fact(13, i).Content
		if i%3 == 0 {
			msg = fmt.Sprintf("fix: %s\n\nFixes #%d", msg, 100+i)
		}
		content := fmt.Sprintf("line %d\n", i)
		fmt.Fprintf(&b, "commit refs/heads/main\nmark :%d\ncommitter Bench <bench@example.com> %d +0000\ndata %d\n%s\n", i+1, 1700000000+i*60, len(msg), msg)
		if i > 0 {
			fmt.Fprintf(&b, "from :%d\n", i)
		}
		fmt.Fprintf(&b, "M 644 inline file%d.txt\ndata %d\n%s\n", i%50, len(content), content)
	}
	c := exec.CommandContext(ctx, "git", "-C", dir, "fast-import", "--quiet")
	c.Stdin = &b
	if out, err := c.CombinedOutput(); err != nil {
		return fmt.Errorf("git fast-import: %v: %s", err, out)
	}
	if out, err := exec.CommandContext(ctx, "git", "-C", dir, "symbolic-ref", "HEAD", "refs/heads/main").CombinedOutput(); err != nil {
		return fmt.Errorf("git symbolic-ref: %v: %s", err, out)
	}
	return nil
}
