package main

import (
	"bytes"
	"context"
	"strings"

	"github.com/spf13/cobra"

	"github.com/holomem/holomem"
	"github.com/holomem/holomem/cmd/holomem/bench"
)

// benchCmd wires the scenarios of package bench to the CLI: the hook
// scenario measures the CLI's own hook path, so it gets it here.
func (a *app) benchCmd() *cobra.Command {
	return bench.Command(bench.Env{
		Stdout: a.stdout, Stderr: a.stderr, Quiet: a.quiet, Version: version, Usage: usagef,
		Hook: func(ctx context.Context, db string) (func(context.Context, string) error, func(), error) {
			h := newApp(strings.NewReader(""), &bytes.Buffer{}, &bytes.Buffer{})
			h.dbPath, h.global, h.noModel = db, true, true
			recall := func(ctx context.Context, prompt string) error {
				_, _, err := h.hookRecall(ctx, holomem.DefaultNamespace, prompt, 5, 600, 0.05)
				return err
			}
			return recall, h.close, nil
		},
		HookServer: func(ctx context.Context, db string) (func(), error) {
			h := newApp(strings.NewReader(""), &bytes.Buffer{}, &bytes.Buffer{})
			h.dbPath, h.global, h.noModel = db, true, true
			h.longRunning()
			m, err := h.memory(ctx)
			if err != nil {
				return nil, err
			}
			if err := m.Warm(ctx); err != nil {
				h.close()
				return nil, err
			}
			ctx, cancel := context.WithCancel(ctx)
			wait := h.serveHooks(ctx, h.logger())
			return func() {
				cancel()
				wait()
				h.close()
			}, nil
		},
	})
}
