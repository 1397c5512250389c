package main

import "github.com/spf13/cobra"

// extraCommands are the commands beyond the core set: models, graph,
// servers, hooks, imports and benchmarks.
func (a *app) extraCommands() []*cobra.Command {
	return []*cobra.Command{
		a.linkCmd(), a.unlinkCmd(), a.edgesCmd(), a.chainCmd(),
		a.backfillCmd(), a.reembedCmd(), a.hookCmd(), a.benchCmd(), a.modelCmd(), a.mcpCmd(), a.serveCmd(), a.graphCmd(), a.evalCmd(),
	}
}
