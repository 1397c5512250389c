package main

import (
	"bytes"
	"context"
	"errors"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/holomem/holomem/internal/app/hooksock"
)

// TestCLI_HookViaServer runs the prompt hook against a running `holomem
// serve` on the same database: the hook asks it over the socket, prints
// the same memory as when it recalls alone, and the server logs the
// outcome; once the server stops, the hook recalls on its own again.
func TestCLI_HookViaServer(t *testing.T) {
	t.Setenv("XDG_RUNTIME_DIR", t.TempDir())
	c := newCLI(t)
	c.ok("add", "The staging database is Postgres 16 on db-stage-1")
	c.ok("add", "Deploys go through the blue-green pipeline")
	const prompt = "which postgres runs on staging?"
	ev := `{"hook_event_name":"UserPromptSubmit","prompt":"` + prompt + `"}`
	alone, _, code := c.run(ev, "hook", "recall")
	if code != 0 || !strings.Contains(alone, "Postgres 16") {
		t.Fatalf("hook without a server: exit %d\n%s", code, alone)
	}

	_, stopServe := startServe(t, c.db)
	waitHookSocket(t, c.db)

	var out bytes.Buffer
	a := newApp(strings.NewReader(""), &out, io.Discard)
	a.dbPath = c.db
	if !a.hookViaServer(t.Context(), time.Now(), "default", prompt, 5, 600, 0.05) {
		t.Fatal("the hook did not reach the running server")
	}
	if out.String() != alone {
		t.Errorf("server's answer:\n%s\nthe hook's own:\n%s", out.String(), alone)
	}
	if a.store != nil {
		t.Error("the hook opened the store although the server answered")
	}
	via, _, code := c.run(ev, "hook", "recall")
	if code != 0 || via != alone {
		t.Errorf("hook recall with serve running: exit %d\n%s\nwant\n%s", code, via, alone)
	}
	if js, _, code := c.run(ev, "--json", "hook", "recall"); code != 0 || js != hookJSON(t, alone, strings.Count(alone, "\n- [#"), "injected") {
		t.Errorf("hook recall --json with serve running: exit %d\n%s\nwant\n%s", code, js, hookJSON(t, alone, strings.Count(alone, "\n- [#"), "injected"))
	}
	if d := c.ok("doctor"); !strings.Contains(d, "hook_server: a running holomem process") {
		t.Errorf("doctor with serve running:\n%s", d)
	}
	stopServe()

	a = newApp(strings.NewReader(""), &out, io.Discard)
	a.dbPath = c.db
	if a.hookViaServer(t.Context(), time.Now(), "default", prompt, 5, 600, 0.05) {
		t.Error("the hook reached a server after it stopped")
	}
	// Five runs: alone, three through the server (logged there), and the
	// one below, alone again; none is logged twice.
	if again, _, _ := c.run(ev, "hook", "recall"); again != alone {
		t.Errorf("hook after serve stopped:\n%s", again)
	}
	var doc struct {
		Extra map[string]any `json:"extra"`
	}
	c.json(&doc, "doctor")
	if s, _ := doc.Extra["hook_server"].(string); !strings.HasPrefix(s, "none") {
		t.Errorf("doctor's hook_server after serve stopped: %q", s)
	}
	hooks, _ := doc.Extra["hook_24h"].(map[string]any)
	outcomes, _ := hooks["outcomes"].(map[string]any)
	if got, _ := outcomes["injected"].(float64); got != 5 || len(outcomes) != 1 {
		t.Errorf("logged hook outcomes = %v; want 5 injected", outcomes)
	}
}

// TestHookServer_Bounds refuses requests beyond the hook's own flags.
func TestHookServer_Bounds(t *testing.T) {
	h := hookServer{a: newApp(strings.NewReader(""), io.Discard, io.Discard)}
	for _, req := range []hooksock.Request{
		{Prompt: "x", Limit: 0, Budget: 600},
		{Prompt: "x", Limit: 51, Budget: 600},
		{Prompt: "x", Limit: 5, Budget: 0},
		{Prompt: "x", Limit: 5, Budget: 20_001},
	} {
		if ans := h.Answer(context.Background(), req); ans.Error == "" {
			t.Errorf("Answer(%+v) accepted", req)
		}
	}
}

// TestHookProcess_AsksMCP runs the built binary as an agent's setup does:
// `holomem mcp` running for the session, and `holomem hook recall` as a
// new process per prompt. The database file is moved away once mcp has it
// open, so a hook that opened the store itself would create an empty one
// and print nothing; one that asked mcp prints the fact. Then `bench hook`
// runs on a tiny store and prints its three process figures.
func TestHookProcess_AsksMCP(t *testing.T) {
	if testing.Short() {
		t.Skip("builds the binary and starts processes")
	}
	bin := buildBinary(t)
	env := append(os.Environ(), "HOLOMEM_MODEL_DIR="+t.TempDir(), "HOLOMEM_NAMESPACE=", "XDG_RUNTIME_DIR="+t.TempDir())
	db := filepath.Join(t.TempDir(), "m.db")
	add := exec.Command(bin, "--db", db, "--global", "add", "The staging database is Postgres 16 on db-stage-1")
	add.Env = env
	if out, err := add.CombinedOutput(); err != nil {
		t.Fatalf("add: %v\n%s", err, out)
	}
	mcpProc := exec.Command(bin, "--db", db, "--global", "mcp")
	mcpProc.Env = env
	stdin, err := mcpProc.StdinPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := mcpProc.Start(); err != nil {
		t.Fatal(err)
	}
	defer func() {
		stdin.Close()
		mcpProc.Wait()
	}()
	t.Setenv("XDG_RUNTIME_DIR", envValue(env, "XDG_RUNTIME_DIR"))
	waitHookSocket(t, db)
	if err := os.Rename(db, db+".moved"); err != nil {
		t.Fatal(err)
	}
	hook := exec.Command(bin, "--db", db, "--global", "hook", "recall")
	hook.Env = env
	hook.Stdin = strings.NewReader(`{"hook_event_name":"UserPromptSubmit","prompt":"which postgres runs on staging?"}`)
	out, err := hook.CombinedOutput()
	if err != nil || !strings.Contains(string(out), "Postgres 16") {
		t.Fatalf("hook with mcp running: %v\n%s", err, out)
	}
	if _, err := os.Stat(db); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("the hook opened a store at %s itself (stat: %v)", db, err)
	}

	bench := exec.Command(bin, "bench", "hook", "--facts", "300", "--procs", "3", "--runs", "3")
	bench.Env = env
	out, err = bench.CombinedOutput()
	if err != nil {
		t.Fatalf("bench hook: %v\n%s", err, out)
	}
	for _, want := range []string{"hook in-process", "hook as a process, no server", "hook as a process, server running", "start only"} {
		if !strings.Contains(string(out), want) {
			t.Errorf("bench hook output lacks %q:\n%s", want, out)
		}
	}
}

func envValue(env []string, name string) string {
	for i := len(env) - 1; i >= 0; i-- {
		if v, ok := strings.CutPrefix(env[i], name+"="); ok {
			return v
		}
	}
	return ""
}

// TestCLI_HookWedgedServer: a process that holds the socket but never
// answers (stopped, wedged) costs the hook its share of the deadline, not
// the answer: it recalls on its own with the time left.
func TestCLI_HookWedgedServer(t *testing.T) {
	t.Setenv("XDG_RUNTIME_DIR", t.TempDir())
	c := newCLI(t)
	c.ok("add", "The staging database is Postgres 16 on db-stage-1")
	ln, err := hooksock.Listen(hooksock.Key(c.db, true))
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	go func() {
		for {
			conn, err := ln.Accept()
			if err != nil {
				return
			}
			defer conn.Close() // held open, never answered
		}
	}()
	ev := `{"hook_event_name":"UserPromptSubmit","prompt":"which postgres runs on staging?"}`
	t0 := time.Now()
	out, _, code := c.run(ev, "hook", "recall", "--deadline", "2s")
	if code != 0 || !strings.Contains(out, "Postgres 16") {
		t.Fatalf("hook with a wedged server: exit %d\n%s", code, out)
	}
	if d := time.Since(t0); d < time.Second {
		t.Errorf("the hook answered in %v: it did not wait for the server's share", d)
	}
}

// waitHookSocket waits until a process answers on db's hook socket.
func waitHookSocket(t *testing.T, db string) {
	t.Helper()
	key := hooksock.Key(db, true)
	for deadline := time.Now().Add(20 * time.Second); ; {
		cl, err := hooksock.Dial(t.Context(), key)
		if err == nil {
			cl.Close(hooksock.Report{})
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("no process answers on the hook socket of %s: %v", db, err)
		}
		time.Sleep(20 * time.Millisecond)
	}
}
