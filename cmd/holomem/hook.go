package main

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"time"

	"github.com/spf13/cobra"

	"github.com/holomem/holomem"
	"github.com/holomem/holomem/hook"
)

// Outcomes of one hook run, logged in the store for doctor.
const (
	hookInjected = holomem.InjectionInjected
	hookEmpty    = holomem.InjectionEmpty
	hookTimeout  = holomem.InjectionTimeout
	hookFailed   = holomem.InjectionFailed
)

// maxHookInput bounds what the hook reads from stdin.
const maxHookInput = 1 << 20

func (a *app) hookCmd() *cobra.Command {
	cmd := &cobra.Command{Use: "hook", Short: "Prompt hooks for agents (see docs/agents.md)", GroupID: "agents"}
	var deadline time.Duration
	var limit, budget int
	var minScore float64
	var standalone bool
	recall := &cobra.Command{
		Use:   "recall",
		Short: "Read a prompt (hook JSON or text) on stdin, print memory to inject, within --deadline",
		Long: `Reads a Claude Code UserPromptSubmit event (or plain text) on stdin, recalls
facts for the prompt and prints them as quoted data for the agent's context.
It never exceeds --deadline: what is found by then is printed, and a miss is
logged so that 'holomem doctor' shows how often memory was injected, empty or late.
It always exits 0 so a slow or broken memory never blocks the prompt.

When 'holomem serve' or 'holomem mcp' runs on the same database, the hook
asks it over a private Unix socket instead of opening the store: that
process has its caches (and the embedding model) warm, and answers with its
own channels and settings. --standalone always recalls in this process.

With --json it prints one JSON object whatever happens:
{"context": the text to inject or "", "hits": N, "outcome": "injected",
"empty", "timeout" or "failed"}.`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			a.oneConnection = true
			a.hookStandalone = standalone
			a.runHook(cmd.Context(), deadline, limit, budget, minScore)
			return nil
		},
	}
	recall.Flags().DurationVar(&deadline, "deadline", 2*time.Second, "answer within this time")
	recall.Flags().IntVarP(&limit, "limit", "k", 5, "at most this many facts")
	recall.Flags().IntVar(&budget, "budget", 600, "token budget of the injected text (about 4 characters a token)")
	recall.Flags().Float64Var(&minScore, "min-score", 0.05, "drop hits scoring below this")
	recall.Flags().BoolVar(&standalone, "standalone", false, "recall in this process even when a holomem server runs on the database")
	cmd.AddCommand(recall)
	return cmd
}

// runHook does the hook's work; every failure becomes an empty injection
// and a log entry, never an error exit.
func (a *app) runHook(parent context.Context, deadline time.Duration, limit, budget int, minScore float64) {
	// The deadline starts before stdin is read: an agent that is slow to
	// write (or never closes) the event must not hold the prompt.
	start := time.Now()
	ctx, cancel := context.WithTimeout(parent, deadline)
	defer cancel()

	raw, err := readWithin(ctx, a.stdin, maxHookInput)
	if err != nil {
		a.hookPrint("", 0, hookTimeout)
		a.logHook(hookTimeout, 0, time.Since(start), "stdin: "+err.Error())
		return
	}
	ev := hook.ParseEvent(raw)
	if ev.Cwd != "" && a.namespace == "" && !a.global {
		if p := projectNamespace(ev.Cwd); p != "" {
			a.namespace = p
		}
	}
	ns := a.ns()
	prompt := hook.CleanPrompt(ev.Prompt)
	if prompt == "" {
		a.hookPrint("", 0, hookEmpty)
		a.logHook(hookEmpty, 0, time.Since(start), "")
		return
	}
	if !a.hookStandalone && a.hookRecallFn == nil && a.hookViaServer(ctx, start, ns, prompt, limit, budget, minScore) {
		return
	}
	type answer struct {
		out  string
		hits int
		err  error
	}
	recall := a.hookRecall
	if a.hookRecallFn != nil {
		recall = a.hookRecallFn
	}
	done := make(chan answer, 1)
	// A recall past the deadline keeps using the store: a.close leaves it
	// open until busy is closed.
	busy := make(chan struct{})
	a.busy = busy
	go func() {
		defer close(busy)
		out, hits, err := recall(ctx, ns, prompt, limit, budget, minScore)
		done <- answer{out, hits, err}
	}()
	var ans answer
	outcome := ""
	select {
	case ans = <-done:
		switch {
		case ans.err != nil && ctx.Err() != nil:
			outcome = hookTimeout
		case ans.err != nil:
			outcome = hookFailed
		case ans.hits == 0:
			outcome = hookEmpty
		default:
			outcome = hookInjected
		}
	case <-ctx.Done():
		outcome = hookTimeout
	}
	a.hookPrint(ans.out, ans.hits, outcome)
	detail := ""
	if ans.err != nil {
		detail = ans.err.Error()
	}
	a.logHook(outcome, ans.hits, time.Since(start), detail)
}

// hookInjection is what `hook recall --json` prints: the text to inject
// ("" unless memory was injected), how many facts it holds, and the run's
// outcome (injected, empty, timeout, failed).
type hookInjection struct {
	Context string `json:"context"`
	Hits    int    `json:"hits"`
	Outcome string `json:"outcome"`
}

// hookPrint prints one run's answer: the injection as text (nothing unless
// memory was injected), or with --json always one JSON object, so a program
// reading it gets an answer on every outcome.
func (a *app) hookPrint(out string, hits int, outcome string) {
	if outcome != hookInjected {
		out, hits = "", 0
	}
	if a.jsonOut {
		enc := json.NewEncoder(a.stdout)
		enc.SetEscapeHTML(false) // the context is for an agent, not a web page
		_ = enc.Encode(hookInjection{Context: out, Hits: hits, Outcome: outcome})
		return
	}
	fmt.Fprint(a.stdout, out)
}

// readWithin reads r up to limit bytes, or fails when ctx is done first
// (the reading goroutine is then left to the process's exit).
func readWithin(ctx context.Context, r io.Reader, limit int64) ([]byte, error) {
	type result struct {
		b   []byte
		err error
	}
	ch := make(chan result, 1)
	go func() {
		b, err := io.ReadAll(io.LimitReader(r, limit))
		ch <- result{b, err}
	}()
	select {
	case res := <-ch:
		return res.b, res.err
	case <-ctx.Done():
		return nil, fmt.Errorf("not read within the deadline: %w", ctx.Err())
	}
}

// hookRecall recalls for the prompt in namespace ns and renders the
// injection.
func (a *app) hookRecall(ctx context.Context, ns, prompt string, limit, budget int, minScore float64) (string, int, error) {
	if prompt = hook.CleanPrompt(prompt); prompt == "" {
		return "", 0, nil
	}
	m, err := a.memory(ctx)
	if err != nil {
		return "", 0, err
	}
	// Recall itself expands #N and issue URLs (the same for every door).
	q := holomem.Query{Text: prompt, Namespace: ns, Limit: limit * 2}
	res, err := m.Recall(ctx, q)
	if err != nil {
		if errors.Is(err, holomem.ErrInvalid) {
			return "", 0, nil
		}
		return "", 0, err
	}
	out, n := hook.Render(res.Hits, hook.Options{Limit: limit, Budget: budget, MinScore: minScore})
	return out, n, nil
}

// logHook records one hook run, after the answer is printed; it gets its
// own deadline (long enough to open the store on a loaded machine when the
// run timed out before opening it) and its failure is ignored.
func (a *app) logHook(outcome string, hits int, took time.Duration, detail string) {
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Second)
	defer cancel()
	inj := holomem.Injection{Namespace: a.ns(), Outcome: outcome, Hits: hits, Took: took, Detail: detail}
	if a.openMu.TryLock() {
		s, err := a.openLocked(ctx)
		a.openMu.Unlock()
		if err == nil {
			_ = s.LogInjection(ctx, inj)
		}
		return
	}
	// The recall that missed the deadline is still opening the store or
	// the model: log through a handle of our own rather than wait for it
	// (never creating the database: the hook only reads).
	if a.checkDBExists() != nil {
		return
	}
	s, err := openStore(ctx, a.dbPath, true)
	if err != nil {
		return
	}
	defer s.Close()
	_ = s.LogInjection(ctx, inj)
}
