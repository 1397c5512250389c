package importer_test

import (
	"bytes"
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"os/exec"
	"strings"
	"testing"
	"time"

	"github.com/holomem/holomem"
	"github.com/holomem/holomem/importer"
	"github.com/holomem/holomem/internal/leaf/cputime"
)

// sink keeps benchmark results alive.
var sink importer.Summary

// ghExport returns n generated issues and PRs as `gh issue/pr list` prints them.
func ghExport(n int) []byte {
	rng := rand.New(rand.NewPCG(1, 2))
	words := strings.Fields("the config parser crashes when a nil value reaches the loader after reload on start with empty file and a bad flag")
	sentence := func(k int) string {
		var b strings.Builder
		for range k {
			b.WriteString(words[rng.IntN(len(words))])
			b.WriteByte(' ')
		}
		return b.String()
	}
	items := make([]map[string]any, n)
	for i := range items {
		num := i + 1
		it := map[string]any{
			"number": num, "title": sentence(8), "body": sentence(80), "state": "CLOSED",
			"url":       fmt.Sprintf("https://github.com/acme/app/issues/%d", num),
			"createdAt": time.Date(2024, 1, 1, 0, 0, 0, 0, time.UTC).Add(time.Duration(i) * time.Hour).Format(time.RFC3339),
			"labels":    []map[string]string{{"name": "bug"}, {"name": "area/core"}},
		}
		if i%2 == 1 && i > 0 {
			issue := rng.IntN(i) + 1
			it["url"] = fmt.Sprintf("https://github.com/acme/app/pull/%d", num)
			it["headRefName"] = fmt.Sprintf("fix/%d-config", issue)
			switch i % 3 {
			case 0:
				it["body"] = it["body"].(string) + fmt.Sprintf("\n\nCloses #%d", issue)
			case 1:
				it["title"] = fmt.Sprintf("fix(config #%d): %s", issue, it["title"])
			}
			it["closingIssuesReferences"] = []map[string]any{{"number": issue, "url": fmt.Sprintf("https://github.com/acme/app/issues/%d", issue)}}
		}
		items[i] = it
	}
	b, _ := json.Marshal(items)
	return b
}

// BenchmarkGitHub parses 10k generated issues and PRs (half each) and
// reports records/s.
func BenchmarkGitHub(b *testing.B) {
	const n = 10_000
	data := ghExport(n)
	b.SetBytes(int64(len(data)))
	b.ReportAllocs()
	cpu0 := cputime.Process()
	for b.Loop() {
		sum, err := importer.GitHub(bytes.NewReader(data), "", func(importer.Record) error { return nil })
		if err != nil || sum.Records != n {
			b.Fatalf("%v %+v", err, sum.Skipped)
		}
		sink = sum
	}
	cpu := (cputime.Process() - cpu0).Seconds()
	b.ReportMetric(float64(n*b.N)/b.Elapsed().Seconds(), "records/s")
	if cpu > 0 {
		b.ReportMetric(float64(n*b.N)/cpu, "records/cpu-s")
	}
}

// fastImportRepo makes a repository with n commits over 200 files through
// git fast-import (thousands of `git commit` runs would take minutes).
func fastImportRepo(b *testing.B, n int) string {
	b.Helper()
	if _, err := exec.LookPath("git"); err != nil {
		b.Skip("git is not installed")
	}
	dir := b.TempDir()
	if out, err := exec.Command("git", "init", "-q", "-b", "main", dir).CombinedOutput(); err != nil {
		b.Fatalf("git init: %v %s", err, out)
	}
	rng := rand.New(rand.NewPCG(3, 4))
	var s bytes.Buffer
	data := func(v string) { fmt.Fprintf(&s, "data %d\n%s\n", len(v), v) }
	for i := range n {
		fmt.Fprintf(&s, "commit refs/heads/main\nmark :%d\n", i+1)
		ts := 1_700_000_000 + i*600
		fmt.Fprintf(&s, "author Dev <dev@example.com> %d +0000\ncommitter Dev <dev@example.com> %d +0000\n", ts, ts)
		msg := fmt.Sprintf("Change %d to the loader\n\nThe parser now handles empty values.", i)
		switch i % 4 {
		case 0:
			msg += fmt.Sprintf("\n\nFixes #%d", rng.IntN(5000)+1)
		case 1:
			msg = fmt.Sprintf("fix(loader #%d): nil check (#%d)", rng.IntN(5000)+1, rng.IntN(5000)+1)
		}
		data(msg)
		if i > 0 {
			fmt.Fprintf(&s, "from :%d\n", i)
		}
		for range 1 + rng.IntN(3) {
			f := fmt.Sprintf("pkg%d/file%d.go", rng.IntN(20), rng.IntN(10))
			fmt.Fprintf(&s, "M 644 inline %s\n", f)
			data(fmt.Sprintf("package x // %d", i))
		}
		s.WriteString("\n")
	}
	cmd := exec.Command("git", "-C", dir, "fast-import", "--quiet")
	cmd.Stdin = &s
	if out, err := cmd.CombinedOutput(); err != nil {
		b.Fatalf("fast-import: %v %s", err, out)
	}
	return dir
}

// BenchmarkGit imports a generated 2,000-commit repository (git log
// included), with and without temporal links (which need git to list each
// commit's files), and reports records/s.
func BenchmarkGit(b *testing.B) {
	const n = 2000
	dir := fastImportRepo(b, n)
	for _, temporal := range []bool{false, true} {
		b.Run(fmt.Sprintf("Temporal=%v", temporal), func(b *testing.B) {
			benchGit(b, dir, n, importer.GitOptions{Temporal: temporal, Name: "bench"})
		})
	}
}

func benchGit(b *testing.B, dir string, n int, opts importer.GitOptions) {
	b.ReportAllocs()
	cpu0 := cputime.Process()
	for b.Loop() {
		sum, err := importer.Git(b.Context(), dir, func(importer.Record) error { return nil }, opts)
		if err != nil || sum.Records != n {
			b.Fatalf("%v %+v", err, sum)
		}
		sink = sum
	}
	cpu := (cputime.Process() - cpu0).Seconds()
	b.ReportMetric(float64(n*b.N)/b.Elapsed().Seconds(), "records/s")
	if cpu > 0 {
		b.ReportMetric(float64(n*b.N)/cpu, "records/cpu-s")
	}
}

// BenchmarkJSONL decodes an export of 10k facts and 10k edges.
func BenchmarkJSONL(b *testing.B) {
	var facts []*holomem.Fact
	var edges []*holomem.Edge
	t0 := time.Date(2025, 1, 1, 0, 0, 0, 0, time.UTC)
	for i := range 10_000 {
		facts = append(facts, &holomem.Fact{ID: int64(i + 1), Namespace: "default", Content: fmt.Sprintf("fact number %d about the config loader", i),
			Category: "general", Tags: []string{"a"}, Trust: 0.5, CreatedAt: t0, UpdatedAt: t0})
		edges = append(edges, &holomem.Edge{From: int64(i + 1), To: int64((i+1)%10_000 + 1), Kind: holomem.EdgeSimilar, Weight: 0.7, CreatedAt: t0})
	}
	data := export(b, facts, edges)
	b.SetBytes(int64(len(data)))
	b.ReportAllocs()
	cpu0 := cputime.Process()
	for b.Loop() {
		sum, err := importer.JSONL(bytes.NewReader(data), func(importer.Record) error { return nil })
		if err != nil || sum.Records != len(facts) {
			b.Fatal(err)
		}
		sink = sum
	}
	cpu := (cputime.Process() - cpu0).Seconds()
	b.ReportMetric(float64(len(facts)*b.N)/b.Elapsed().Seconds(), "facts/s")
	if cpu > 0 {
		b.ReportMetric(float64(len(facts)*b.N)/cpu, "facts/cpu-s")
	}
}
