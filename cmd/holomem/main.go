// Command holomem is long-term memory for AI agents: one binary, one SQLite
// file. Run `holomem --help` for the commands.
package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/signal"
	"syscall"

	"github.com/holomem/holomem"
)

// Exit codes scripts can rely on (documented in docs/cli.md).
const (
	exitOK          = 0
	exitError       = 1 // anything unexpected
	exitUsage       = 2 // bad flags or arguments
	exitNotFound    = 3 // unknown fact, edge, entity or model
	exitInvalid     = 4 // input rejected (empty, invalid UTF-8, too large, ...)
	exitConflict    = 5 // collides with existing data
	exitUnsupported = 6 // not a holomem database, or from a newer holomem
	exitNoModel     = 7 // a semantic operation without a model
)

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	code := run(ctx, os.Args[1:], os.Stdin, os.Stdout, os.Stderr)
	stop()
	os.Exit(code)
}

// run executes one command line and returns the process exit code.
func run(ctx context.Context, args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	a := newApp(stdin, stdout, stderr)
	defer a.close()
	root := a.rootCommandFor(args)
	root.SetArgs(args)
	root.SetIn(stdin)
	root.SetOut(stdout)
	root.SetErr(stderr)
	err := root.ExecuteContext(ctx)
	if err == nil {
		return exitOK
	}
	code := exitCode(err)
	a.printError(err, code)
	return code
}

// usageError marks errors in how the command was called.
type usageError struct{ msg string }

func (e *usageError) Error() string { return e.msg }

func usagef(format string, args ...any) error {
	return &usageError{msg: fmt.Sprintf(format, args...)}
}

// exitCode maps an error to the documented exit codes: the one place the
// CLI turns domain sentinels into numbers.
func exitCode(err error) int {
	var ue *usageError
	switch {
	case errors.As(err, &ue):
		return exitUsage
	case errors.Is(err, holomem.ErrNotFound):
		return exitNotFound
	case errors.Is(err, holomem.ErrInvalid):
		return exitInvalid
	case errors.Is(err, holomem.ErrConflict):
		return exitConflict
	case errors.Is(err, holomem.ErrSchema):
		return exitUnsupported
	case errors.Is(err, holomem.ErrNoEmbedder):
		return exitNoModel
	case isCobraUsage(err):
		return exitUsage
	}
	return exitError
}

// version is reported by the MCP handshake and /healthz.
var version = "0.1.0"
