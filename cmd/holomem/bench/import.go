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

	"github.com/holomem/holomem"
	"github.com/holomem/holomem/importer"
	"github.com/holomem/holomem/internal/bench/synth"
	"github.com/holomem/holomem/retrieve"
	"github.com/holomem/holomem/sqlite"
	"github.com/spf13/cobra"
)

func (e *Env) importCmd() *cobra.Command {
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
			t0 := time.Now()
			rep, err := importInto(ctx, filepath.Join(dir, "gh.db"), importer.Options{Kind: "github", Path: ghPath, Repo: "acme/app", Namespace: holomem.DefaultNamespace})
			if err != nil {
				return err
			}
			el := time.Since(t0)
			fmt.Fprintf(e.Stdout, "github: %d records, %d causal edges in %s: %.0f records/s\n", rep.Records, rep.Edges, el.Round(time.Millisecond), float64(rep.Records)/el.Seconds())

			repo := filepath.Join(dir, "repo")
			if err := makeGitRepo(ctx, repo, commits); err != nil {
				return err
			}
			t0 = time.Now()
			rep, err = importInto(ctx, filepath.Join(dir, "git.db"), importer.Options{Kind: "git", Path: repo, Namespace: holomem.DefaultNamespace})
			if err != nil {
				return err
			}
			el = time.Since(t0)
			fmt.Fprintf(e.Stdout, "git: %d commits, %d edges in %s: %.0f records/s\n", rep.Records, rep.Edges, el.Round(time.Millisecond), float64(rep.Records)/el.Seconds())
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

// importInto runs an import, as `holomem --global --no-model import` does,
// into a new store at db.
func importInto(ctx context.Context, db string, o importer.Options) (*importer.Report, error) {
	s, err := sqlite.Open(ctx, db)
	if err != nil {
		return nil, err
	}
	defer s.Close()
	m, err := retrieve.New(s, retrieve.Options{})
	if err != nil {
		return nil, err
	}
	defer m.Close()
	return importer.Run(ctx, m, s, o)
}
