package bench

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math/rand/v2"
	"net/http"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"syscall"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/spf13/cobra"

	"github.com/holomem/holomem/internal/bench/synth"
	"github.com/holomem/holomem/sqlite"
)

// opTimeout bounds every single operation of the load scenario: a call
// that takes longer counts as an error rather than hanging the run.
const opTimeout = time.Minute

func (e *Env) loadCmd() *cobra.Command {
	var (
		agents, ops, conns, facts int
		duration, timeout         time.Duration
		bin                       string
	)
	cmd := &cobra.Command{
		Use:   "load",
		Short: "Agents over MCP stdio and HTTP clients at once against one serve: p50/p99 per operation, errors, locked, lost facts",
		Long: `Starts a real "holomem serve" on a temporary SQLite store (loopback) and,
at the same time, --agents "holomem mcp" processes on the same file each doing
--ops mixed tool calls (remember, recall, probe, get, feedback, update,
supersede) and --conns HTTP connections doing mixed recall and add for
--duration. Prints p50/p99 per operation kind, the errors, how many of them
said the database was locked or busy, and checks afterwards that every
acknowledged fact (an id answered) is in the file with its last acknowledged
content. Exits 1 when anything failed.`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			switch {
			case agents < 0 || conns < 0 || agents+conns == 0:
				return e.Usage("--agents and --conns must be >= 0, one of them > 0")
			case agents > 64 || conns > 1024:
				return e.Usage("at most 64 agents and 1024 connections (the run is meant to stay bounded)")
			case agents > 0 && (ops < 1 || ops > 100_000):
				return e.Usage("--ops must be 1..100000")
			case conns > 0 && (duration <= 0 || duration > time.Hour):
				return e.Usage("--duration must be > 0 and <= 1h")
			case facts < 1 || facts > 1_000_000:
				return e.Usage("--facts must be 1..1000000")
			case timeout <= 0:
				return e.Usage("--timeout must be > 0")
			}
			exe := bin
			if exe == "" {
				var err error
				if exe, err = os.Executable(); err != nil {
					return fmt.Errorf("find the holomem binary: %w", err)
				}
			}
			ctx, cancel := context.WithTimeout(cmd.Context(), timeout)
			defer cancel()
			dir, err := os.MkdirTemp("", "holomem-bench-load")
			if err != nil {
				return err
			}
			defer os.RemoveAll(dir)
			l := &loadRun{env: e, exe: exe, db: filepath.Join(dir, "load.db"), agents: agents, ops: ops,
				conns: conns, duration: duration, facts: facts,
				lat: map[string][]time.Duration{}, acked: map[int64]string{}, calls: map[string]int{}}
			if err := fillSynthetic(ctx, l.db, facts); err != nil {
				return fmt.Errorf("fill the store: %w", err)
			}
			return l.run(ctx)
		},
	}
	cmd.Flags().IntVar(&agents, "agents", 8, "concurrent `holomem mcp` processes (MCP over stdio)")
	cmd.Flags().IntVar(&ops, "ops", 1000, "mixed tool calls per agent")
	cmd.Flags().IntVar(&conns, "conns", 64, "concurrent HTTP connections to serve")
	cmd.Flags().DurationVar(&duration, "duration", time.Minute, "how long the HTTP connections run")
	cmd.Flags().IntVar(&facts, "facts", 2000, "synthetic facts in the store before the run")
	cmd.Flags().DurationVar(&timeout, "timeout", 30*time.Minute, "give up after this long")
	cmd.Flags().StringVar(&bin, "bin", "", "holomem binary to start for serve and mcp (default: this one)")
	return cmd
}

// loadRun is one run of the load scenario and what it observed.
type loadRun struct {
	env                       *Env
	exe, db                   string
	agents, ops, conns, facts int
	duration                  time.Duration

	mu     sync.Mutex
	lat    map[string][]time.Duration // per operation kind ("mcp recall", "http add")
	errs   int
	locked int
	sample []string // the first few error messages
	acked  map[int64]string
	calls  map[string]int // operations made per door ("mcp", "http")
	logs   []*syncBuffer  // stderr of serve and the agents
}

// syncBuffer is a bytes.Buffer a child process and the reader share.
type syncBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (s *syncBuffer) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(p)
}

func (s *syncBuffer) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.String()
}

func (l *loadRun) stderr() *syncBuffer {
	b := &syncBuffer{}
	l.mu.Lock()
	l.logs = append(l.logs, b)
	l.mu.Unlock()
	return b
}

// isLocked reports whether an error message is SQLite's busy/locked
// error reaching a user: the store must wait for the lock, never surface it.
func isLocked(msg string) bool {
	m := strings.ToLower(msg)
	return strings.Contains(m, "sqlite_busy") || strings.Contains(m, "database is locked") ||
		strings.Contains(m, "sqlite_locked") || strings.Contains(m, "database table is locked")
}

func (l *loadRun) record(kind string, d time.Duration, err error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	door, _, _ := strings.Cut(kind, " ")
	l.calls[door]++
	if err != nil {
		l.errs++
		if isLocked(err.Error()) {
			l.locked++
		}
		if len(l.sample) < 5 {
			l.sample = append(l.sample, kind+": "+err.Error())
		}
		return
	}
	l.lat[kind] = append(l.lat[kind], d)
}

func (l *loadRun) ack(id int64, content string) {
	l.mu.Lock()
	l.acked[id] = content
	l.mu.Unlock()
}

func (l *loadRun) run(ctx context.Context) error {
	srv, addr, err := l.startServe(ctx)
	if err != nil {
		return err
	}
	defer func() {
		if srv.ProcessState == nil {
			srv.Process.Kill()
			srv.Wait()
		}
	}()
	var wg sync.WaitGroup
	t0 := time.Now()
	var httpTook, mcpTook time.Duration
	if l.conns > 0 {
		wg.Go(func() {
			l.httpClients(ctx, addr)
			httpTook = time.Since(t0)
		})
	}
	if l.agents > 0 {
		wg.Go(func() {
			var aw sync.WaitGroup
			for a := range l.agents {
				aw.Go(func() { l.agent(ctx, a) })
			}
			aw.Wait()
			mcpTook = time.Since(t0)
		})
	}
	wg.Wait()
	// A graceful stop, so serve flushes its queued bookkeeping as a user's
	// Ctrl-C would.
	srv.Process.Signal(syscall.SIGTERM)
	waited := make(chan error, 1)
	go func() { waited <- srv.Wait() }()
	select {
	case err := <-waited:
		if err != nil {
			l.record("serve exit", 0, fmt.Errorf("serve: %w", err))
		}
	case <-time.After(30 * time.Second):
		srv.Process.Kill()
		<-waited
		l.record("serve exit", 0, errors.New("serve did not stop within 30 s of SIGTERM"))
	}
	for _, b := range l.logs {
		for line := range strings.Lines(b.String()) {
			if isLocked(line) {
				l.locked++
				if len(l.sample) < 5 {
					l.sample = append(l.sample, "log: "+strings.TrimSpace(line))
				}
			}
		}
	}
	missing, err := l.missing(ctx)
	if err != nil {
		return err
	}
	l.report(httpTook, mcpTook, missing)
	if l.errs > 0 || l.locked > 0 || missing > 0 {
		return fmt.Errorf("load: %d errors, %d locked/busy surfaced, %d acknowledged facts missing", l.errs, l.locked, missing)
	}
	return nil
}

// startServe starts `holomem serve` on a free loopback port and returns
// its base URL.
func (l *loadRun) startServe(ctx context.Context) (*exec.Cmd, string, error) {
	c := exec.Command(l.exe, "--db", l.db, "--global", "--no-model", "serve", "--addr", "127.0.0.1:0", "--refresh", "0")
	c.Stderr = l.stderr()
	out, err := c.StdoutPipe()
	if err != nil {
		return nil, "", err
	}
	if err := c.Start(); err != nil {
		return nil, "", fmt.Errorf("start serve: %w", err)
	}
	line := make(chan string, 1)
	go func() {
		s, _ := bufio.NewReader(out).ReadString('\n')
		line <- s
		io.Copy(io.Discard, out)
	}()
	select {
	case s := <-line:
		if f := strings.Fields(strings.TrimPrefix(s, "holomem serving on ")); len(f) > 0 && strings.HasPrefix(f[0], "http://") {
			return c, f[0], nil
		}
	case <-time.After(time.Minute):
	case <-ctx.Done():
	}
	c.Process.Kill()
	c.Wait()
	return nil, "", fmt.Errorf("serve did not start: %s", strings.TrimSpace(c.Stderr.(*syncBuffer).String()))
}

// httpClients runs conns connections of mixed recall (3 in 4) and add (1
// in 4) until the duration is over.
func (l *loadRun) httpClients(ctx context.Context, addr string) {
	tr := &http.Transport{MaxIdleConnsPerHost: l.conns, MaxConnsPerHost: l.conns}
	defer tr.CloseIdleConnections()
	client := &http.Client{Transport: tr, Timeout: opTimeout}
	token := os.Getenv("HOLOMEM_TOKEN")
	end := time.Now().Add(l.duration)
	var wg sync.WaitGroup
	for c := range l.conns {
		wg.Go(func() {
			r := rand.New(rand.NewPCG(uint64(c), 2))
			for i := 0; time.Now().Before(end) && ctx.Err() == nil; i++ {
				var req *http.Request
				kind := "http recall"
				var content string
				if r.IntN(4) == 0 {
					kind = "http add"
					content = fmt.Sprintf("%s (http conn %d request %d)", synth.Fact(uint64(1000+c), i).Content, c, i)
					body, _ := json.Marshal(map[string]string{"content": content})
					req, _ = http.NewRequestWithContext(ctx, http.MethodPost, addr+"/api/facts", bytes.NewReader(body))
					req.Header.Set("Content-Type", "application/json")
				} else {
					q := url.Values{"q": {synth.Query(uint64(c), i)}, "limit": {"10"}}
					req, _ = http.NewRequestWithContext(ctx, http.MethodGet, addr+"/api/recall?"+q.Encode(), nil)
				}
				if token != "" {
					req.Header.Set("Authorization", "Bearer "+token)
				}
				t0 := time.Now()
				resp, err := client.Do(req)
				if err != nil {
					l.record(kind, 0, err)
					continue
				}
				b, err := io.ReadAll(io.LimitReader(resp.Body, 4<<20))
				resp.Body.Close()
				d := time.Since(t0)
				switch {
				case err != nil:
					l.record(kind, d, err)
				case kind == "http add" && resp.StatusCode == http.StatusCreated:
					var rem struct {
						Fact struct {
							ID int64 `json:"id"`
						} `json:"fact"`
					}
					if err := json.Unmarshal(b, &rem); err != nil || rem.Fact.ID == 0 {
						l.record(kind, d, fmt.Errorf("201 without a fact id: %.200s", b))
						continue
					}
					l.ack(rem.Fact.ID, content)
					l.record(kind, d, nil)
				case kind == "http recall" && resp.StatusCode == http.StatusOK:
					l.record(kind, d, nil)
				default:
					l.record(kind, d, fmt.Errorf("HTTP %d: %.200s", resp.StatusCode, b))
				}
			}
		})
	}
	wg.Wait()
}

// agent is one `holomem mcp` process doing ops mixed tool calls: 30%
// remember, 30% recall, 10% each probe, get and feedback, 5% each update
// (of its own facts) and supersede (an own fact by a new one).
func (l *loadRun) agent(ctx context.Context, a int) {
	c := exec.Command(l.exe, "--db", l.db, "--global", "--no-model", "mcp")
	c.Stderr = l.stderr()
	cctx, cancel := context.WithTimeout(ctx, opTimeout)
	cs, err := mcp.NewClient(&mcp.Implementation{Name: "bench-load", Version: l.env.Version}, nil).Connect(cctx, &mcp.CommandTransport{Command: c}, nil)
	cancel()
	if err != nil {
		l.record("mcp connect", 0, fmt.Errorf("agent %d: %w", a, err))
		return
	}
	defer cs.Close()
	r := rand.New(rand.NewPCG(uint64(a), 1))
	own := map[int64]string{} // this agent's live facts and their content
	var ids []int64
	call := func(kind string, args map[string]any, out any) bool {
		cctx, cancel := context.WithTimeout(ctx, opTimeout)
		defer cancel()
		t0 := time.Now()
		res, err := cs.CallTool(cctx, &mcp.CallToolParams{Name: kind, Arguments: args})
		d := time.Since(t0)
		if err == nil && res.IsError {
			var msg []string
			for _, c := range res.Content {
				if t, ok := c.(*mcp.TextContent); ok {
					msg = append(msg, t.Text)
				}
			}
			err = fmt.Errorf("tool error: %s", strings.Join(msg, " "))
		}
		if err == nil && out != nil {
			if t, ok := firstText(res); ok {
				err = json.Unmarshal([]byte(t), out)
			}
		}
		l.record("mcp "+kind, d, err)
		return err == nil
	}
	remember := func(i int) int64 {
		content := fmt.Sprintf("%s (agent %d op %d)", synth.Fact(uint64(100+a), i).Content, a, i)
		var out struct {
			ID int64 `json:"id"`
		}
		if call("remember", map[string]any{"content": content}, &out) && out.ID != 0 {
			l.ack(out.ID, content)
			own[out.ID] = content
			ids = append(ids, out.ID)
			return out.ID
		}
		return 0
	}
	pickOwn := func() int64 { return ids[r.IntN(len(ids))] }
	for i := range l.ops {
		if ctx.Err() != nil {
			return
		}
		switch k := r.IntN(20); {
		case k < 6 || (k >= 18 && len(ids) < 2):
			remember(i)
		case k < 12:
			call("recall", map[string]any{"query": synth.Query(uint64(a), i), "limit": 10}, nil)
		case k < 14:
			ppl := synth.People()
			call("probe", map[string]any{"entity": ppl[r.IntN(len(ppl))], "limit": 10}, nil)
		case k < 16:
			call("get", map[string]any{"id": 1 + r.IntN(l.facts)}, nil)
		case k < 18:
			call("feedback", map[string]any{"id": 1 + r.IntN(l.facts), "helpful": r.IntN(2) == 0}, nil)
		case k == 18:
			id := pickOwn()
			content := own[id] + " (updated)"
			if call("update", map[string]any{"id": id, "content": content}, nil) {
				l.ack(id, content)
				own[id] = content
			}
		default:
			old := pickOwn()
			if nw := remember(i); nw != 0 && call("supersede", map[string]any{"old": old, "new": nw}, nil) {
				// A superseded fact stays in the file; it is no longer
				// this agent's to update or supersede again.
				ids = slices.DeleteFunc(ids, func(x int64) bool { return x == old })
			}
		}
	}
}

func firstText(res *mcp.CallToolResult) (string, bool) {
	for _, c := range res.Content {
		if t, ok := c.(*mcp.TextContent); ok {
			return t.Text, true
		}
	}
	return "", false
}

// missing opens the file after serve and every agent stopped and counts
// acknowledged facts that are absent or lost their last acknowledged
// content.
func (l *loadRun) missing(ctx context.Context) (int, error) {
	s, err := sqlite.Open(ctx, l.db)
	if err != nil {
		return 0, fmt.Errorf("open the store after the run: %w", err)
	}
	defer s.Close()
	n := 0
	for id, content := range l.acked {
		f, err := s.FindFactByID(ctx, id)
		if err != nil || f.Content != content {
			n++
			if len(l.sample) < 5 {
				l.sample = append(l.sample, fmt.Sprintf("fact #%d acknowledged but missing or changed (%v)", id, err))
			}
		}
	}
	return n, nil
}

func (l *loadRun) report(httpTook, mcpTook time.Duration, missing int) {
	httpN, mcpN := l.calls["http"], l.calls["mcp"]
	w := l.env.Stdout
	fmt.Fprintf(w, "load: one serve on a %d-fact SQLite store (loopback); %d MCP agents x %d ops over stdio; %d HTTP connections for %s\n",
		l.facts, l.agents, l.ops, l.conns, l.duration)
	kinds := make([]string, 0, len(l.lat))
	for k := range l.lat {
		kinds = append(kinds, k)
	}
	slices.Sort(kinds)
	fmt.Fprintf(w, "  %-15s %7s %12s %12s\n", "operation", "n", "p50", "p99")
	for _, k := range kinds {
		p50, p99 := percentiles(l.lat[k])
		fmt.Fprintf(w, "  %-15s %7d %12s %12s\n", k, len(l.lat[k]), ms(p50), ms(p99))
	}
	if httpN > 0 {
		fmt.Fprintf(w, "  HTTP: %d requests in %s (%.0f req/s)\n", httpN, httpTook.Round(time.Millisecond), float64(httpN)/httpTook.Seconds())
	}
	if mcpN > 0 {
		fmt.Fprintf(w, "  MCP: %d calls in %s (%.0f calls/s)\n", mcpN, mcpTook.Round(time.Millisecond), float64(mcpN)/mcpTook.Seconds())
	}
	fmt.Fprintf(w, "errors: %d   locked/busy surfaced: %d   acknowledged facts: %d, missing afterwards: %d\n",
		l.errs, l.locked, len(l.acked), missing)
	for _, s := range l.sample {
		fmt.Fprintf(w, "  e.g. %s\n", s)
	}
}
