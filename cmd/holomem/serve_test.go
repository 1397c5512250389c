package main

import (
	"bufio"
	"context"
	"encoding/json"
	"io"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// buildBinary compiles holomem once for the tests that need a real process.
func buildBinary(t *testing.T) string {
	t.Helper()
	bin := filepath.Join(t.TempDir(), "holomem")
	out, err := exec.Command("go", "build", "-o", bin, ".").CombinedOutput()
	if err != nil {
		t.Fatalf("go build: %v\n%s", err, out)
	}
	return bin
}

// TestMCP_StdioBinary drives `holomem mcp` as an agent would: the SDK's
// client over a real stdio pipe to the built binary.
func TestMCP_StdioBinary(t *testing.T) {
	if testing.Short() {
		t.Skip("builds the binary")
	}
	bin := buildBinary(t)
	db := filepath.Join(t.TempDir(), "mcp.db")
	cmd := exec.Command(bin, "--db", db, "--global", "--no-model", "mcp")
	cmd.Env = append(os.Environ(), "HOLOMEM_MODEL_DIR="+t.TempDir())
	ctx, cancel := context.WithTimeout(t.Context(), time.Minute)
	defer cancel()
	cs, err := mcp.NewClient(&mcp.Implementation{Name: "cli-test", Version: "1"}, nil).Connect(ctx, &mcp.CommandTransport{Command: cmd}, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer cs.Close()
	tools, err := cs.ListTools(ctx, nil)
	if err != nil {
		t.Fatal(err)
	}
	names := map[string]bool{}
	for _, tl := range tools.Tools {
		names[tl.Name] = true
	}
	for _, want := range []string{"remember", "recall", "get", "update", "forget", "feedback", "probe", "related", "reason", "link", "supersede", "status"} {
		if !names[want] {
			t.Errorf("tool %q missing", want)
		}
	}
	call := func(name string, args map[string]any) *mcp.CallToolResult {
		t.Helper()
		res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: name, Arguments: args})
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		return res
	}
	if res := call("remember", map[string]any{"content": "Alice prefers dark mode in the editor", "category": "user_pref"}); res.IsError {
		t.Fatalf("remember: %+v", res.Content)
	}
	res := call("recall", map[string]any{"query": "what editor theme does Alice like"})
	b, _ := json.Marshal(res.StructuredContent)
	if res.IsError || !strings.Contains(string(b), "dark mode") {
		t.Errorf("recall: %s", b)
	}
	// The fact is in the database file, visible to the CLI.
	c := &cli{t: t, db: db}
	if out := c.ok("list"); !strings.Contains(out, "dark mode") {
		t.Errorf("list after MCP remember: %s", out)
	}
}

// TestServe_HTTP starts `holomem serve` in-process on a free port and uses
// the JSON API; a non-loopback address without a token is refused.
func TestServe_HTTP(t *testing.T) {
	t.Setenv("HOLOMEM_TOKEN", "")
	c := newCLI(t)
	if _, errs, code := c.run("", "serve", "--addr", "0.0.0.0:0"); code == 0 || !strings.Contains(errs, "token") {
		t.Errorf("non-loopback bind without a token: exit %d, %s", code, errs)
	}
	c.ok("add", "The staging database is Postgres 16")

	pr, pw := io.Pipe()
	ctx, cancel := context.WithCancel(t.Context())
	done := make(chan int, 1)
	go func() {
		done <- run(ctx, []string{"--db", c.db, "--global", "serve", "--addr", "127.0.0.1:0"}, strings.NewReader(""), pw, io.Discard)
		pw.Close()
	}()
	line, err := bufio.NewReader(pr).ReadString('\n')
	if err != nil {
		t.Fatal(err)
	}
	go io.Copy(io.Discard, pr)
	base := regexp.MustCompile(`http://\S+`).FindString(line)
	if base == "" {
		t.Fatalf("no address in %q", line)
	}
	resp, err := http.Get(base + "/api/recall?q=staging+postgres")
	if err != nil {
		t.Fatal(err)
	}
	body, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	if resp.StatusCode != 200 || !strings.Contains(string(body), "Postgres 16") {
		t.Errorf("GET /api/recall: %d %s", resp.StatusCode, body)
	}
	resp, err = http.Get(base + "/healthz")
	if err != nil || resp.StatusCode != 200 {
		t.Errorf("healthz: %v %v", resp, err)
	}
	cancel()
	if code := <-done; code != 0 {
		t.Errorf("serve exit %d after shutdown", code)
	}
}
