package bench

import (
	"context"
	"io"

	"github.com/spf13/cobra"
)

// Env is what the scenarios need from the holomem binary: where to print
// and the few CLI code paths a scenario measures end to end.
type Env struct {
	Stdout, Stderr io.Writer
	// Quiet turns progress output off.
	Quiet bool
	// Version is reported in the MCP handshake of the mcp scenario.
	Version string
	// Usage wraps a message about a bad flag so the binary exits with its
	// usage code.
	Usage func(format string, args ...any) error
	// Hook opens db the way `holomem --global --no-model hook recall` does
	// and returns a function that runs the hook's recall and rendering once.
	Hook func(ctx context.Context, db string) (recall func(ctx context.Context, prompt string) error, closeFn func(), err error)
	// HookServer starts answering prompt hooks on db's socket the way
	// `holomem serve` does, until stop.
	HookServer func(ctx context.Context, db string) (stop func(), err error)
}

// scenarios is the registry of `holomem bench` subcommands. Adding one is
// a new file named after it holding a `func (e *Env) nameCmd()
// *cobra.Command`, plus one line here.
var scenarios = []func(*Env) *cobra.Command{
	(*Env).storeCmd,
	(*Env).embedCmd,
	(*Env).annCmd,
	(*Env).hookCmd,
	(*Env).mcpCmd,
	(*Env).importCmd,
	(*Env).keywordCmd,
	(*Env).serveCmd,
	(*Env).loadCmd,
	(*Env).algebraCmd,
}

// Command returns `holomem bench` with every scenario as a subcommand.
func Command(env Env) *cobra.Command {
	cmd := &cobra.Command{Use: "bench", Short: "Benchmark scenarios that print the figures in docs/benchmarks.md", GroupID: "admin"}
	for _, newCmd := range scenarios {
		cmd.AddCommand(newCmd(&env))
	}
	return cmd
}
