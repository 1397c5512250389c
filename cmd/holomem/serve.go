package main

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net"
	"net/http"
	"os"
	"runtime/debug"
	"time"

	"github.com/spf13/cobra"

	"github.com/holomem/holomem"
	"github.com/holomem/holomem/mcpserver"
	"github.com/holomem/holomem/retrieve"
	"github.com/holomem/holomem/web"
)

func (a *app) serveCmd() *cobra.Command {
	var addr string
	var trustedProxies []string
	var tokenFile string
	var refresh time.Duration
	var backupEvery time.Duration
	var backupKeep int
	var backupDir string
	hookSocket := true
	cmd := &cobra.Command{
		Annotations: createsDB,
		Use:         "serve",
		Short:       "Serve the web UI (/), the HTTP JSON API and MCP over streamable HTTP (/mcp)",
		Long: `Serves the web UI at /, /api/... (JSON), /mcp (MCP streamable HTTP) and /healthz. Binds to
127.0.0.1:7777 by default and refuses a non-loopback address unless
$HOLOMEM_TOKEN is set, at least 32 characters (clients then send
"Authorization: Bearer <token>"). With a token every path needs it except a
bare /healthz probe (it answers "ok", no detail), /login (5 wrong tokens per
minute per address, then 429) and the login page's two assets.
The vector index and the model stay warm; every --refresh a background sync
applies the facts other processes wrote (read by the store's change feed,
one row per changed fact). On PostgreSQL (--db postgres://...) several
servers can share one database: each LISTENs for the others' writes and
syncs within a fraction of a second, the periodic sync staying as the
fallback.
Prompt hooks ('holomem hook recall') on the same database ask this server over
a private Unix socket (--hook-socket=false: they recall on their own).`,
		GroupID: "agents", Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			token := os.Getenv("HOLOMEM_TOKEN")
			if err := web.ListenAddrAllowed(addr, token); err != nil {
				return err
			}
			if err := web.ValidateOptions(web.Options{TrustedProxies: trustedProxies}); err != nil {
				return err
			}
			ctx := cmd.Context()
			a.longRunning()
			m, err := a.memory(ctx)
			if err != nil {
				return err
			}
			log := a.logger()
			t0 := time.Now()
			if err := m.Warm(ctx); err != nil {
				log.Warn("warm-up failed; serving cold", "err", err)
			}
			log.Info("warm", "took", time.Since(t0).Round(time.Millisecond), "channels", m.Channels())
			tightenGC()
			mcpSrv := mcpserver.New(m, m.Store(), mcpserver.Options{Namespace: a.ns(), Version: version, Logger: log})
			opts := web.Options{Token: token, Namespace: a.ns(), MCP: mcpSrv.Handler(), Logger: log, Version: version, TrustedProxies: trustedProxies}
			if tokenFile != "" {
				if token == "" {
					return usagef("--tokens needs $HOLOMEM_TOKEN too: the server token keeps every right (the web UI), the file's tokens are scoped")
				}
				if opts.Grants, err = web.ReadTokenGrants(tokenFile); err != nil {
					return err
				}
				opts.MCPFor = func(g *holomem.Grant) http.Handler {
					ns := a.ns()
					if !g.CanRead(ns) {
						ns = g.Namespaces[0]
					}
					return mcpserver.New(m, m.Store(), mcpserver.Options{Namespace: ns, Grant: g, Version: version, Logger: log}).Handler()
				}
				log.Info("scoped tokens", "count", len(opts.Grants))
			}
			if hc, ok := holomem.As[holomem.HealthChecker](m.Store()); ok {
				opts.Health = hc.Health
			}
			if c, ok := holomem.As[holomem.FileChecker](m.Store()); ok {
				go watchFile(ctx, c.CheckFile, log)
			}
			a.webUI(&opts, m)
			h := web.NewServer(m, m.Store(), opts)
			ln, err := net.Listen("tcp", addr)
			if err != nil {
				return fmt.Errorf("listen %s: %w", addr, err)
			}
			if backupEvery > 0 {
				bctx, stop := context.WithCancel(ctx)
				defer stop()
				go a.backupLoop(bctx, backupDir, backupEvery, backupKeep, log)
			}
			if hookSocket {
				hctx, stop := context.WithCancel(ctx)
				defer a.serveHooks(hctx, log)()
				defer stop()
			}
			return serveHTTP(ctx, ln, h, m, refresh, a.stdout)
		},
	}
	cmd.Flags().DurationVar(&backupEvery, "backup-every", 0, "write a verified backup this often, e.g. 6h (0: never)")
	cmd.Flags().IntVar(&backupKeep, "backup-keep", 7, "backups to keep in --backup-dir (older ones are removed)")
	cmd.Flags().StringVar(&backupDir, "backup-dir", "", "directory of periodic backups (default: backups/ beside the database)")
	cmd.Flags().StringVar(&addr, "addr", "127.0.0.1:7777", "listen address")
	cmd.Flags().StringVar(&tokenFile, "tokens", "", "JSON file of scoped client tokens: [{\"token\": ..., \"namespaces\": [...], \"write\": true}] (needs $HOLOMEM_TOKEN)")
	cmd.Flags().StringSliceVar(&trustedProxies, "trusted-proxy", nil, "address or CIDR of a reverse proxy whose X-Forwarded-Proto/-For are believed (Secure cookies behind a TLS proxy, /login throttling per client)")
	cmd.Flags().DurationVar(&refresh, "refresh", time.Minute, "sync the vectors with other processes' writes this often (0: never)")
	cmd.Flags().BoolVar(&hookSocket, "hook-socket", true, "answer prompt hooks on this database over a private Unix socket")
	return cmd
}

// serveHTTP serves until ctx ends while the memory maintains itself in the
// background ([retrieve.Memory.Maintain]), then shuts down gracefully.
func serveHTTP(ctx context.Context, ln net.Listener, h http.Handler, m *retrieve.Memory, refresh time.Duration, out interface{ Write([]byte) (int, error) }) error {
	srv := &http.Server{
		Handler: h,
		// Slow or idle clients cannot hold connections open: headers in
		// 10 s, a whole request in 30 s, an answer within 2 min (MCP event
		// streams reconnect after that), idle keep-alives closed after 60 s.
		ReadHeaderTimeout: 10 * time.Second,
		ReadTimeout:       30 * time.Second,
		WriteTimeout:      2 * time.Minute,
		IdleTimeout:       60 * time.Second,
		MaxHeaderBytes:    64 << 10,
	}
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	done := make(chan struct{})
	go func() {
		defer close(done)
		m.Maintain(ctx, refresh)
	}()
	errc := make(chan error, 1)
	go func() { errc <- srv.Serve(ln) }()
	fmt.Fprintf(out, "holomem serving on http://%s (web UI /, API /api, MCP /mcp, health /healthz)\n", ln.Addr())
	var err error
	select {
	case <-ctx.Done():
	case err = <-errc:
	}
	cancel()
	shut, stop := context.WithTimeout(context.Background(), 5*time.Second)
	defer stop()
	_ = srv.Shutdown(shut)
	<-done
	if errors.Is(err, http.ErrServerClosed) {
		err = nil
	}
	return err
}

// watchFile logs, once, that the database file was deleted or replaced
// under the server (a restore run beside it, a copy over it): writes are
// refused from then on (sqlite.Store.CheckFile) and /healthz answers 503,
// but an operator reading only the log learns it here.
func watchFile(ctx context.Context, check func() error, log *slog.Logger) {
	t := time.NewTicker(5 * time.Second)
	defer t.Stop()
	for {
		select {
		case <-ctx.Done():
			return
		case <-t.C:
			if err := check(); err != nil {
				log.Error("database file changed under serve; writes are refused until restart", "err", err)
				return
			}
		}
	}
}

// tightenGC lowers the garbage collector's target from 100% to 50% of the
// live heap in a long-running process, unless $GOGC says otherwise: the
// in-memory text index is most of serve's heap (~65 MB at 100k facts), and
// with the default the process would carry as much again in garbage
// (issue 10's budget: 150 MB of RSS at 100k facts). The index's postings
// hold no pointers, so the extra collections are cheap.
func tightenGC() {
	if os.Getenv("GOGC") == "" {
		debug.SetGCPercent(50)
	}
}

// retrievalFlushEvery is how often serve and mcp write the retrieval counts
// recall queued (and once more on shutdown).
const retrievalFlushEvery = 5 * time.Second
