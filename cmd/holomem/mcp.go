package main

import (
	"context"
	"errors"

	"github.com/holomem/holomem/mcpserver"
	"github.com/spf13/cobra"
)

func (a *app) mcpCmd() *cobra.Command {
	return &cobra.Command{
		Use:   "mcp",
		Short: "Serve the memory tools over MCP on stdin/stdout (for Claude Code, Cursor, any MCP client)",
		Long: `Runs an MCP server on stdin/stdout. The default namespace is the git project of the
working directory (--global for the shared one). Logs go to stderr.`,
		GroupID: "agents", Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			a.useGraph = true
			a.retrievalFlush = retrievalFlushEvery
			m, err := a.memory(cmd.Context())
			if err != nil {
				return err
			}
			srv := mcpserver.New(m, m.Store(), mcpserver.Options{
				Namespace: a.ns(), Version: version, Logger: a.logger(),
			})
			err = srv.ServeStdio(cmd.Context())
			if errors.Is(err, context.Canceled) {
				return nil
			}
			return err
		},
	}
}
