package main

import (
	"context"
	"errors"
	"sync"

	"github.com/holomem/holomem/mcpserver"
	"github.com/spf13/cobra"
)

func (a *app) mcpCmd() *cobra.Command {
	hookSocket := true
	cmd := &cobra.Command{
		Annotations: createsDB,
		Use:         "mcp",
		Short:       "Serve the memory tools over MCP on stdin/stdout (for Claude Code, Cursor, any MCP client)",
		Long: `Runs an MCP server on stdin/stdout. The default namespace is the git project of the
working directory (--global for the shared one). Logs go to stderr.
Prompt hooks ('holomem hook recall') on the same database ask this process
over a private Unix socket while it runs (--hook-socket=false: they recall on
their own).`,
		GroupID: "agents", Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			a.longRunning()
			m, err := a.memory(cmd.Context())
			if err != nil {
				return err
			}
			// The text index loads while the client starts up; recall uses
			// the store's search until it is ready.
			ctx, cancel := context.WithCancel(cmd.Context())
			var warm sync.WaitGroup
			warm.Go(func() {
				if err := m.WarmText(ctx); err != nil && ctx.Err() == nil {
					a.logger().Warn("text index not loaded; recall uses the store's search", "err", err)
				}
				tightenGC()
			})
			defer warm.Wait()
			if hookSocket {
				defer a.serveHooks(ctx, a.logger())()
			}
			defer cancel()
			srv := mcpserver.New(m, m.Store(), mcpserver.Options{
				Namespace: a.ns(), Version: version, Logger: a.logger(),
			})
			err = srv.ServeStdio(ctx)
			if errors.Is(err, context.Canceled) {
				return nil
			}
			return err
		},
	}
	cmd.Flags().BoolVar(&hookSocket, "hook-socket", true, "answer prompt hooks on this database over a private Unix socket")
	return cmd
}
