package main

import "github.com/spf13/cobra"

// commands is the registry of holomem's subcommands, in the order `holomem
// help` lists them within their groups. Adding a command is one new file
// named after it (add.go, recall.go, ...) holding a
// `func (a *app) nameCmd() *cobra.Command` that parses flags, calls the
// library and prints the result, plus one line here. Rules (ranking,
// thresholds, import logic) belong in the library, not in the command.
var commands = []func(*app) *cobra.Command{
	// Facts.
	(*app).addCmd,
	(*app).getCmd,
	(*app).updateCmd,
	(*app).forgetCmd,
	(*app).feedbackCmd,
	(*app).listCmd,
	(*app).supersedeCmd,
	// Recall.
	(*app).recallCmd,
	(*app).probeCmd,
	(*app).relatedCmd,
	(*app).reasonCmd,
	// Graph.
	(*app).linkCmd,
	(*app).unlinkCmd,
	(*app).edgesCmd,
	(*app).chainCmd,
	(*app).graphCmd,
	// Store and models.
	(*app).initCmd,
	(*app).statsCmd,
	(*app).doctorCmd,
	(*app).exportCmd,
	(*app).backupCmd,
	(*app).verifyCmd,
	(*app).restoreCmd,
	(*app).importCmd,
	(*app).copyCmd,
	(*app).backfillCmd,
	(*app).reembedCmd,
	(*app).modelCmd,
	(*app).benchCmd,
	(*app).evalCmd,
	// Agents.
	(*app).hookCmd,
	(*app).mcpCmd,
	(*app).serveCmd,
	(*app).uiCmd,
}
