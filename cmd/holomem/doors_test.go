package main

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"io"
	"net/http"
	"os"
	"os/exec"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// doorFacts share words in different proportions, so a ranking has to be
// made (and no two are near-duplicates the hook would fold).
var doorFacts = []string{
	"We deploy nginx to the staging servers with Ansible every Friday",
	"The staging database is Postgres 16 on a dedicated host",
	"nginx returns 502 when the upstream pool is exhausted",
	"Deploys to production need a green CI run and a second reviewer",
	"Alice owns the Ansible playbooks for the edge proxies",
	"The staging servers were moved to the Frankfurt region in March",
	"Rollbacks use the previous nginx image tag from the registry",
	"Bob prefers blue-green deploys over rolling restarts",
	"Issue 57: nginx config reload drops websocket connections",
	"Postgres backups run nightly and are kept for 30 days",
	"Caching headers for static assets are set in the nginx site config",
	"The Ansible inventory lists every staging and production host",
}

// TestDoors_sameRanking: the same query gives the same facts in the same
// order through every door on one SQLite file: `recall --json`, the MCP
// recall tool (the built binary over stdio), POST /api/recall of `serve`,
// and the prompt hook's injection.
func TestDoors_sameRanking(t *testing.T) {
	if testing.Short() {
		t.Skip("builds the binary")
	}
	t.Setenv("HOLOMEM_TOKEN", "")
	c := newCLI(t)
	for _, f := range doorFacts {
		c.ok("add", f)
	}
	const limit = 10
	queries := []string{
		"how do we deploy nginx to the staging servers",
		"what happened with Postgres backups on staging",
		"who owns Ansible",
		"nginx websocket connections drop",
	}

	cliIDs := func(q string) []int64 {
		var res struct {
			Hits []struct {
				Fact struct{ ID int64 } `json:"fact"`
			} `json:"hits"`
		}
		c.json(&res, "recall", q, "--limit", strconv.Itoa(limit))
		var ids []int64
		for _, h := range res.Hits {
			ids = append(ids, h.Fact.ID)
		}
		return ids
	}

	// MCP: the built binary, as an agent runs it.
	bin := buildBinary(t)
	cmd := exec.Command(bin, "--db", c.db, "--global", "mcp")
	cmd.Env = append(os.Environ(), "HOLOMEM_MODEL_DIR="+os.Getenv("HOLOMEM_MODEL_DIR"))
	ctx, cancel := context.WithTimeout(t.Context(), 2*time.Minute)
	defer cancel()
	cs, err := mcp.NewClient(&mcp.Implementation{Name: "doors-test", Version: "1"}, nil).Connect(ctx, &mcp.CommandTransport{Command: cmd}, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer cs.Close()
	mcpIDs := func(q string) []int64 {
		res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "recall", Arguments: map[string]any{"query": q, "limit": limit, "budget": 20000}})
		if err != nil || res.IsError {
			t.Fatalf("mcp recall %q: %v %+v", q, err, res)
		}
		b, _ := json.Marshal(res.StructuredContent)
		return hitIDsJSON(t, b)
	}

	// HTTP: `serve` in-process.
	pr, pw := io.Pipe()
	sctx, scancel := context.WithCancel(t.Context())
	done := make(chan int, 1)
	go func() {
		done <- run(sctx, []string{"--db", c.db, "--global", "serve", "--addr", "127.0.0.1:0"}, strings.NewReader(""), pw, io.Discard)
		pw.Close()
	}()
	defer func() {
		scancel()
		<-done
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
	httpIDs := func(q string) []int64 {
		body, _ := json.Marshal(map[string]any{"query": q, "limit": limit})
		resp, err := http.Post(base+"/api/recall", "application/json", bytes.NewReader(body))
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		b, _ := io.ReadAll(resp.Body)
		if resp.StatusCode != http.StatusOK {
			t.Fatalf("POST /api/recall %q: %d %s", q, resp.StatusCode, b)
		}
		return hitIDsJSON(t, b)
	}

	// The hook asks recall for twice the facts it may show (-k 5 -> 10)
	// and prints them in order; no score floor, a budget that fits all.
	hookRe := regexp.MustCompile(`(?m)^- \[#(\d+) `)
	hookIDs := func(q string) []int64 {
		ev, _ := json.Marshal(map[string]string{"hook_event_name": "UserPromptSubmit", "prompt": q})
		out, errs, code := c.run(string(ev), "hook", "recall", "-k", strconv.Itoa(limit/2), "--min-score", "0", "--budget", "100000", "--deadline", "30s")
		if code != 0 {
			t.Fatalf("hook %q: exit %d %s", q, code, errs)
		}
		var ids []int64
		for _, m := range hookRe.FindAllStringSubmatch(out, -1) {
			id, _ := strconv.ParseInt(m[1], 10, 64)
			ids = append(ids, id)
		}
		return ids
	}

	for _, q := range queries {
		want := cliIDs(q)
		if len(want) < 3 {
			t.Fatalf("recall %q found %v; the test needs a ranking", q, want)
		}
		t.Logf("%q: %v", q, want)
		for door, ids := range map[string][]int64{"mcp": mcpIDs(q), "http": httpIDs(q)} {
			if !slices.Equal(ids, want) {
				t.Errorf("%q: %s ranks %v; cli ranks %v", q, door, ids, want)
			}
		}
		if got := hookIDs(q); !slices.Equal(got, want[:min(len(want), limit/2)]) {
			t.Errorf("%q: hook injects %v; cli ranks %v", q, got, want)
		}
	}
}

// hitIDsJSON reads the fact ids of a holomem.Result in JSON.
func hitIDsJSON(t *testing.T, b []byte) []int64 {
	t.Helper()
	var res struct {
		Hits []struct {
			ID   int64               `json:"id"` // MCP's lean hits
			Fact *struct{ ID int64 } `json:"fact"`
		} `json:"hits"`
	}
	if err := json.Unmarshal(b, &res); err != nil {
		t.Fatalf("not a result: %v\n%s", err, b)
	}
	var ids []int64
	for _, h := range res.Hits {
		if h.Fact != nil {
			ids = append(ids, h.Fact.ID)
		} else {
			ids = append(ids, h.ID)
		}
	}
	return ids
}
