package main

import (
	"bufio"
	"context"
	"io"
	"net/http"
	"regexp"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/holomem/holomem/internal/testkit/pgtest"
)

// startServe runs `holomem serve` in-process on a free port and returns
// its base URL and a stop function (waits for the shutdown and checks the
// exit code); it also stops when the test ends.
func startServe(t *testing.T, db string, args ...string) (base string, stop func()) {
	t.Helper()
	pr, pw := io.Pipe()
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan int, 1)
	go func() {
		done <- run(ctx, append([]string{"--db", db, "--global", "--no-model", "serve", "--addr", "127.0.0.1:0"}, args...), strings.NewReader(""), pw, io.Discard)
		pw.Close()
	}()
	var once sync.Once
	stop = func() {
		once.Do(func() {
			cancel()
			if code := <-done; code != 0 {
				t.Errorf("serve exit %d after shutdown", code)
			}
		})
	}
	t.Cleanup(stop)
	line, err := bufio.NewReader(pr).ReadString('\n')
	if err != nil {
		t.Fatal(err)
	}
	go io.Copy(io.Discard, pr)
	base = regexp.MustCompile(`http://\S+`).FindString(line)
	if base == "" {
		t.Fatalf("no address in %q", line)
	}
	return base, stop
}

func httpDo(t *testing.T, method, url, body string) string {
	t.Helper()
	req, err := http.NewRequest(method, url, strings.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("Content-Type", "application/json")
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	if resp.StatusCode >= 300 {
		t.Fatalf("%s %s: %d %s", method, url, resp.StatusCode, b)
	}
	return string(b)
}

// TestServe_ReplicasOnPostgres runs two servers on one PostgreSQL schema,
// with the periodic refresh effectively off (1 h): a fact written through
// one must reach the other's in-memory HRR cache, which only the
// LISTEN/NOTIFY path can do. The second server's probe loads its cache
// first, so without the notification it would keep answering from the
// stale copy.
func TestServe_ReplicasOnPostgres(t *testing.T) {
	t.Setenv("HOLOMEM_TOKEN", "")
	t.Setenv("HOLOMEM_MODEL_DIR", t.TempDir())
	t.Setenv("HOLOMEM_NAMESPACE", "")
	db := pgtest.Addr(t)
	a, _ := startServe(t, db, "--refresh", "1h")
	b, _ := startServe(t, db, "--refresh", "1h")

	httpDo(t, "POST", a+"/api/facts", `{"content": "Alice deploys the billing service"}`)
	if got := httpDo(t, "GET", b+"/api/probe?entity=Alice", ""); !strings.Contains(got, "billing") {
		t.Fatalf("probe on the second server: %s", got)
	}
	httpDo(t, "POST", a+"/api/facts", `{"content": "Alice reviews the payments code"}`)
	start := time.Now()
	for {
		got := httpDo(t, "GET", b+"/api/probe?entity=Alice", "")
		if strings.Contains(got, "payments") {
			t.Logf("write on one replica visible to probe on the other after %v", time.Since(start).Round(time.Millisecond))
			break
		}
		if time.Since(start) > 20*time.Second {
			t.Fatalf("second server never saw the write (probe: %s)", got)
		}
		time.Sleep(20 * time.Millisecond)
	}
	// Recall (full text) on the second server sees it as well.
	if got := httpDo(t, "GET", b+"/api/recall?q=payments+code", ""); !strings.Contains(got, "payments") {
		t.Errorf("recall on the second server: %s", got)
	}
}
