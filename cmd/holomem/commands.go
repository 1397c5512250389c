package main

import "github.com/spf13/cobra"

// command is an entry of commands: the names a subcommand answers to, so
// a process can pick it without building it, and its constructor.
type command struct {
	names string // its name, then its aliases, space-separated
	new   func(*app) *cobra.Command
}

// commands is the registry of holomem's subcommands, in the order `holomem
// help` lists them within their groups. Adding a command is one new file
// named after it (add.go, recall.go, ...) holding a
// `func (a *app) nameCmd() *cobra.Command` that parses flags, calls the
// library and prints the result, plus one line here with its name (and
// aliases; TestCommands_names checks them). Rules (ranking, thresholds,
// import logic) belong in the library, not in the command.
var commands = []command{
	// Facts.
	{"add", (*app).addCmd},
	{"get", (*app).getCmd},
	{"update", (*app).updateCmd},
	{"forget", (*app).forgetCmd},
	{"feedback", (*app).feedbackCmd},
	{"list", (*app).listCmd},
	{"supersede", (*app).supersedeCmd},
	// Recall.
	{"recall search", (*app).recallCmd},
	{"probe", (*app).probeCmd},
	{"related", (*app).relatedCmd},
	{"reason", (*app).reasonCmd},
	// Graph.
	{"link", (*app).linkCmd},
	{"unlink", (*app).unlinkCmd},
	{"edges", (*app).edgesCmd},
	{"chain", (*app).chainCmd},
	{"graph", (*app).graphCmd},
	// Store and models.
	{"init", (*app).initCmd},
	{"stats", (*app).statsCmd},
	{"doctor", (*app).doctorCmd},
	{"export", (*app).exportCmd},
	{"backup", (*app).backupCmd},
	{"verify", (*app).verifyCmd},
	{"restore", (*app).restoreCmd},
	{"import", (*app).importCmd},
	{"copy", (*app).copyCmd},
	{"backfill", (*app).backfillCmd},
	{"reembed", (*app).reembedCmd},
	{"model", (*app).modelCmd},
	{"bench", (*app).benchCmd},
	{"eval", (*app).evalCmd},
	// Agents.
	{"connect", (*app).connectCmd},
	{"hook", (*app).hookCmd},
	{"mcp", (*app).mcpCmd},
	{"serve", (*app).serveCmd},
	{"ui", (*app).uiCmd},
}
