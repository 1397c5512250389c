package main

import (
	"context"
	"errors"
	"log/slog"
	"sync"
	"time"

	"github.com/holomem/holomem"
	"github.com/holomem/holomem/backend"
	"github.com/holomem/holomem/internal/app/hooksock"
)

// storeKey names the store of --db for the hook socket (see
// hooksock.Key): the resolved file path, or the PostgreSQL address without
// its password.
func (a *app) storeKey() string {
	if !backend.IsFile(a.dbPath) {
		return hooksock.Key(backend.Redact(a.dbPath), false)
	}
	return hooksock.Key(sqlitePath(a.dbPath), true)
}

// serveHooks answers prompt hooks for this store on its socket while ctx
// lasts (serve and mcp run it); wait returns once the socket is closed.
// While another process serves the socket, this one checks every
// hookTakeOver whether it has stopped, and takes over; when sockets are
// not available, hooks recall on their own. Neither is an error.
func (a *app) serveHooks(ctx context.Context, log *slog.Logger) (wait func()) {
	key := a.storeKey()
	var wg sync.WaitGroup
	wg.Go(func() {
		for {
			ln, err := hooksock.Listen(key)
			switch {
			case errors.Is(err, hooksock.ErrOwned):
				select {
				case <-ctx.Done():
					return
				case <-time.After(hookTakeOver):
					continue
				}
			case err != nil:
				log.Warn("prompt hooks will recall on their own", "err", err)
				return
			}
			if err := hooksock.Serve(ctx, ln, key, hookServer{a: a, log: log}); err != nil {
				log.Warn("hook socket closed; prompt hooks recall on their own", "err", err)
			}
			return
		}
	})
	return wg.Wait
}

// hookTakeOver is how often a process whose store's hook socket is served
// by another checks whether that one has stopped.
const hookTakeOver = 2 * time.Second

// hookServerStatus says whether prompt hooks on this store are answered
// by a running process, for doctor.
func (a *app) hookServerStatus(ctx context.Context) string {
	ctx, cancel := context.WithTimeout(ctx, time.Second)
	defer cancel()
	cl, err := hooksock.Dial(ctx, a.storeKey())
	if err != nil {
		return "none: prompt hooks open the store themselves (a running `holomem serve` or `holomem mcp` answers them warm)"
	}
	cl.Close(hooksock.Report{})
	return "a running holomem process (serve or mcp) answers prompt hooks"
}

// hookServer answers hooks with the running process's memory: its
// channels (graph, live text index, the model when loaded) and its caches.
type hookServer struct {
	a   *app
	log *slog.Logger
}

// Hook request bounds: a request asks for what `hook recall` flags allow.
const (
	maxHookLimit  = 50
	maxHookBudget = 20_000
)

func (h hookServer) Answer(ctx context.Context, req hooksock.Request) hooksock.Answer {
	if req.Limit <= 0 || req.Limit > maxHookLimit || req.Budget <= 0 || req.Budget > maxHookBudget {
		return hooksock.Answer{Error: "limit must be 1..50 and budget 1..20000"}
	}
	ns := req.Namespace
	if ns == "" {
		ns = holomem.DefaultNamespace
	}
	out, n, err := h.a.hookRecall(ctx, ns, req.Prompt, req.Limit, req.Budget, req.MinScore)
	if err != nil {
		return hooksock.Answer{Error: err.Error()}
	}
	return hooksock.Answer{Text: out, Hits: n}
}

func (h hookServer) Done(req hooksock.Request, ans hooksock.Answer, rep hooksock.Report) {
	switch rep.Outcome {
	case hookInjected, hookEmpty, hookTimeout, hookFailed:
	default:
		rep = hooksock.Report{Outcome: hookFailed, Took: rep.Took, Detail: "unknown outcome " + rep.Outcome}
	}
	if rep.Outcome != hookInjected {
		ans.Hits = 0
	}
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Second)
	defer cancel()
	s, err := h.a.open(ctx)
	if err == nil {
		err = s.LogInjection(ctx, holomem.Injection{
			Namespace: req.Namespace, Outcome: rep.Outcome, Hits: ans.Hits, Took: rep.Took, Detail: rep.Detail,
		})
	}
	if err != nil {
		h.log.Warn("hook outcome not logged", "err", err)
	}
}

// hookViaServer hands the prompt to the holomem process serving this
// store, if one does, prints its answer and reports the outcome to it
// (it logs it). It returns false, having printed nothing, when no server
// answers, the server failed, or it did not answer within its share of the
// deadline (a stopped or wedged process still accepts connections): the
// hook then recalls itself with the time left.
func (a *app) hookViaServer(ctx context.Context, start time.Time, ns, prompt string, limit, budget int, minScore float64) bool {
	key := a.storeKey()
	askCtx, cancel := context.WithTimeout(ctx, serverShare(ctx))
	defer cancel()
	cl, err := hooksock.Dial(askCtx, key)
	if err != nil {
		return false
	}
	ans, err := cl.Ask(askCtx, hooksock.Request{
		Version: hooksock.Version, Store: key, Namespace: ns, Prompt: prompt, Limit: limit, Budget: budget, MinScore: minScore,
	})
	rep := hooksock.Report{}
	switch {
	case err != nil && ctx.Err() == nil:
		// The server failed (it may be shutting down) or is too slow:
		// the hook recalls here with the time left. A server that answers
		// late finds the connection closed and logs a timeout.
		cl.Close(rep)
		return false
	case err != nil:
		rep.Outcome, rep.Detail = hookTimeout, "waiting for the holomem server: "+err.Error()
	case ans.Hits == 0 || ans.Text == "":
		rep.Outcome = hookEmpty
	default:
		rep.Outcome = hookInjected
	}
	a.hookPrint(ans.Text, ans.Hits, rep.Outcome)
	rep.Took = time.Since(start)
	cl.Close(rep)
	return true
}

// serverShare is how long the hook waits for a server: half the time left
// before its deadline, at most a second (a warm server answers in a few
// milliseconds), so that a cold recall of its own still fits after it.
func serverShare(ctx context.Context) time.Duration {
	dl, ok := ctx.Deadline()
	if !ok {
		return time.Second
	}
	return min(time.Until(dl)/2, time.Second)
}
