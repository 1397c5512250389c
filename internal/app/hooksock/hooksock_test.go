//go:build unix

package hooksock

import (
	"context"
	"errors"
	"fmt"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"
)

// privateRuntimeDir points the sockets at a fresh directory for the test.
func privateRuntimeDir(t *testing.T) string {
	t.Helper()
	dir := t.TempDir()
	t.Setenv("XDG_RUNTIME_DIR", dir)
	return filepath.Join(dir, "holomem")
}

func TestKey(t *testing.T) {
	dir := t.TempDir()
	real := filepath.Join(dir, "real")
	if err := os.Mkdir(real, 0o700); err != nil {
		t.Fatal(err)
	}
	link := filepath.Join(dir, "link")
	if err := os.Symlink(real, link); err != nil {
		t.Fatal(err)
	}
	db := filepath.Join(real, "m.db")
	if err := os.WriteFile(db, nil, 0o600); err != nil {
		t.Fatal(err)
	}
	t.Chdir(real)
	for _, tc := range []struct {
		name, addr string
		file       bool
		want       string
	}{
		{"absolute", db, true, db},
		{"relative", "m.db", true, db},
		{"through a link", filepath.Join(link, "m.db"), true, db},
		{"not yet created, through a link", filepath.Join(link, "new.db"), true, filepath.Join(real, "new.db")},
		{"address", "postgres://u@h/db", false, "postgres://u@h/db"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			// t.TempDir may itself sit under a link (macOS /var).
			want, err := filepath.EvalSymlinks(filepath.Dir(tc.want))
			if err != nil || !tc.file {
				want = tc.want
			} else {
				want = filepath.Join(want, filepath.Base(tc.want))
			}
			if got := Key(tc.addr, tc.file); got != want {
				t.Errorf("Key(%q) = %q, want %q", tc.addr, got, want)
			}
		})
	}
}

func TestPath(t *testing.T) {
	dir := privateRuntimeDir(t)
	a, err := Path("/x/a.db")
	if err != nil {
		t.Fatal(err)
	}
	b, _ := Path("/x/b.db")
	if a == b || filepath.Dir(a) != dir {
		t.Errorf("paths %q and %q: want two names in %s", a, b, dir)
	}
	if again, _ := Path("/x/a.db"); again != a {
		t.Errorf("Path is not stable: %q then %q", a, again)
	}
	fi, err := os.Stat(dir)
	if err != nil || fi.Mode().Perm() != 0o700 {
		t.Fatalf("socket directory: %v, %v; want mode 0700", fi.Mode(), err)
	}
	// A directory others may enter is refused, not used.
	if err := os.Chmod(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	if _, err := Path("/x/a.db"); err == nil || !strings.Contains(err.Error(), "other users") {
		t.Errorf("Path with a 0755 directory: %v; want a refusal", err)
	}
	if _, err := Dial(t.Context(), "/x/a.db"); !errors.Is(err, ErrNoServer) {
		t.Errorf("Dial with a 0755 directory: %v; want ErrNoServer", err)
	}
}

// echoHandler answers with the prompt and records the reports.
type echoHandler struct {
	mu      sync.Mutex
	reports []Report
	done    chan struct{}
	block   chan struct{}
}

func newEchoHandler() *echoHandler {
	return &echoHandler{done: make(chan struct{}, 16)}
}

func (h *echoHandler) Answer(ctx context.Context, req Request) Answer {
	if h.block != nil {
		select {
		case <-h.block:
		case <-ctx.Done():
		}
	}
	if req.Prompt == "fail" {
		return Answer{Error: "recall failed"}
	}
	return Answer{Text: fmt.Sprintf("%s/%s/%d", req.Namespace, req.Prompt, req.Limit), Hits: 1}
}

func (h *echoHandler) Done(_ Request, _ Answer, rep Report) {
	h.mu.Lock()
	h.reports = append(h.reports, rep)
	h.mu.Unlock()
	h.done <- struct{}{}
}

func (h *echoHandler) waitReport(t *testing.T) Report {
	t.Helper()
	select {
	case <-h.done:
	case <-time.After(10 * time.Second):
		t.Fatal("no report reached the server")
	}
	h.mu.Lock()
	defer h.mu.Unlock()
	return h.reports[len(h.reports)-1]
}

// serve runs a server for key; stop ends it and fails the test when Serve
// errs or takes more than 5 s to return. It also stops when the test ends.
func serve(t *testing.T, key string, h Handler) (stop func()) {
	t.Helper()
	ln, err := Listen(key)
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- Serve(ctx, ln, key, h) }()
	var once sync.Once
	stop = func() {
		once.Do(func() {
			cancel()
			select {
			case err := <-done:
				if err != nil {
					t.Errorf("Serve: %v", err)
				}
			case <-time.After(5 * time.Second):
				t.Error("Serve did not return within 5 s of its context ending")
			}
		})
	}
	t.Cleanup(stop)
	return stop
}

func TestExchange(t *testing.T) {
	privateRuntimeDir(t)
	const key = "/data/m.db"
	if _, err := Dial(t.Context(), key); !errors.Is(err, ErrNoServer) {
		t.Fatalf("Dial with no server: %v; want ErrNoServer", err)
	}
	h := newEchoHandler()
	serve(t, key, h)

	t.Run("answer and report", func(t *testing.T) {
		cl, err := Dial(t.Context(), key)
		if err != nil {
			t.Fatal(err)
		}
		ans, err := cl.Ask(t.Context(), Request{Version: Version, Store: key, Namespace: "ns", Prompt: "deploy", Limit: 5, Budget: 600})
		if err != nil || ans.Text != "ns/deploy/5" || ans.Hits != 1 {
			t.Fatalf("Ask = %+v, %v", ans, err)
		}
		cl.Close(Report{Outcome: "injected", Took: 3 * time.Millisecond})
		if rep := h.waitReport(t); rep.Outcome != "injected" || rep.Took != 3*time.Millisecond {
			t.Errorf("report = %+v", rep)
		}
	})
	t.Run("hang up without a report", func(t *testing.T) {
		cl, err := Dial(t.Context(), key)
		if err != nil {
			t.Fatal(err)
		}
		if _, err := cl.Ask(t.Context(), Request{Version: Version, Store: key, Prompt: "x", Limit: 1, Budget: 1}); err != nil {
			t.Fatal(err)
		}
		cl.Close(Report{})
		if rep := h.waitReport(t); rep.Outcome != "timeout" {
			t.Errorf("report = %+v; want a timeout", rep)
		}
	})
	for _, tc := range []struct {
		name string
		req  Request
		want string
	}{
		{"another store", Request{Version: Version, Store: "/data/other.db", Prompt: "x"}, "another store"},
		{"another version", Request{Version: Version + 1, Store: key, Prompt: "x"}, "exchange version"},
		{"failed recall", Request{Version: Version, Store: key, Prompt: "fail"}, "recall failed"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			cl, err := Dial(t.Context(), key)
			if err != nil {
				t.Fatal(err)
			}
			defer cl.Close(Report{})
			if _, err := cl.Ask(t.Context(), tc.req); err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Errorf("Ask = %v; want an error with %q", err, tc.want)
			}
		})
	}
	t.Run("malformed request", func(t *testing.T) {
		path, _ := Path(key)
		c, err := net.Dial("unix", path)
		if err != nil {
			t.Fatal(err)
		}
		defer c.Close()
		fmt.Fprintf(c, "{not json\n")
		buf := make([]byte, 4096)
		n, _ := c.Read(buf)
		if !strings.Contains(string(buf[:n]), "bad request") {
			t.Errorf("answer to a malformed request: %q", buf[:n])
		}
	})
	t.Run("line too long", func(t *testing.T) {
		cl, err := Dial(t.Context(), key)
		if err != nil {
			t.Fatal(err)
		}
		defer cl.Close(Report{})
		_, err = cl.Ask(t.Context(), Request{Version: Version, Store: key, Prompt: strings.Repeat("a", maxLine+1)})
		if err == nil {
			t.Error("Ask with a 1 MiB prompt: no error")
		}
	})
	select {
	case <-h.done:
		t.Error("an exchange that ended in an error was reported")
	default:
	}
}

func TestAskDeadline(t *testing.T) {
	privateRuntimeDir(t)
	const key = "/data/slow.db"
	h := newEchoHandler()
	h.block = make(chan struct{})
	defer close(h.block)
	serve(t, key, h)
	cl, err := Dial(t.Context(), key)
	if err != nil {
		t.Fatal(err)
	}
	defer cl.Close(Report{})
	ctx, cancel := context.WithTimeout(t.Context(), 100*time.Millisecond)
	defer cancel()
	t0 := time.Now()
	_, err = cl.Ask(ctx, Request{Version: Version, Store: key, Prompt: "x", Limit: 1, Budget: 1})
	if !errors.Is(err, context.DeadlineExceeded) {
		t.Errorf("Ask past its deadline = %v; want DeadlineExceeded", err)
	}
	if d := time.Since(t0); d > 5*time.Second {
		t.Errorf("Ask returned %v after its deadline", d)
	}
}

func TestListenOwnership(t *testing.T) {
	privateRuntimeDir(t)
	const key = "/data/own.db"
	ln, err := Listen(key)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := Listen(key); !errors.Is(err, ErrOwned) {
		t.Fatalf("second Listen = %v; want ErrOwned", err)
	}
	path, _ := Path(key)
	if fi, err := os.Stat(path); err != nil || fi.Mode().Perm() != 0o600 {
		t.Errorf("socket: %v, %v; want mode 0600", fi, err)
	}
	ln.Close()
	for _, p := range []string{path, path + ".lock"} {
		if _, err := os.Stat(p); !errors.Is(err, os.ErrNotExist) {
			t.Errorf("%s after Close: %v; want it removed", p, err)
		}
	}
	ln, err = Listen(key)
	if err != nil {
		t.Fatalf("Listen after the owner closed: %v", err)
	}
	ln.Close()
}

// TestListenAfterKill takes over the socket of a process killed while it
// served: its lock goes with it, and its socket file is left behind.
func TestListenAfterKill(t *testing.T) {
	const key = "/data/killed.db"
	if os.Getenv("HOOKSOCK_OWNER") == "1" {
		if _, err := Listen(key); err != nil {
			fmt.Println("listen:", err)
			os.Exit(1)
		}
		fmt.Println("listening")
		time.Sleep(time.Minute)
		os.Exit(0)
	}
	dir := privateRuntimeDir(t)
	cmd := exec.Command(os.Args[0], "-test.run=^TestListenAfterKill$")
	cmd.Env = append(os.Environ(), "HOOKSOCK_OWNER=1", "XDG_RUNTIME_DIR="+filepath.Dir(dir))
	out, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	buf := make([]byte, 64)
	n, _ := out.Read(buf)
	if !strings.Contains(string(buf[:n]), "listening") {
		cmd.Process.Kill()
		t.Fatalf("owner process: %q", buf[:n])
	}
	if _, err := Listen(key); !errors.Is(err, ErrOwned) {
		t.Errorf("Listen while another process serves = %v; want ErrOwned", err)
	}
	cmd.Process.Kill()
	cmd.Wait()
	path, _ := Path(key)
	if _, err := os.Stat(path); err != nil {
		t.Fatalf("the killed owner's socket file: %v; the test expects it left behind", err)
	}
	if _, err := Dial(t.Context(), key); !errors.Is(err, ErrNoServer) {
		t.Errorf("Dial to a dead owner's socket = %v; want ErrNoServer", err)
	}
	h := newEchoHandler()
	serve(t, key, h)
	cl, err := Dial(t.Context(), key)
	if err != nil {
		t.Fatal(err)
	}
	defer cl.Close(Report{})
	if ans, err := cl.Ask(t.Context(), Request{Version: Version, Store: key, Prompt: "p", Limit: 1, Budget: 1}); err != nil || ans.Text != "/p/1" {
		t.Errorf("Ask after the take-over = %+v, %v", ans, err)
	}
}

// TestServeStopsWithSlowClient: a server shutting down does not wait for a
// hook that connected and never wrote.
func TestServeStopsWithSlowClient(t *testing.T) {
	privateRuntimeDir(t)
	const key = "/data/stop.db"
	stop := serve(t, key, newEchoHandler())
	cl, err := Dial(t.Context(), key)
	if err != nil {
		t.Fatal(err)
	}
	defer cl.Close(Report{})
	time.Sleep(50 * time.Millisecond) // accepted, waiting for a request
	stop()
}
