package main

import (
	"bytes"
	"context"
	"slices"
	"strings"
	"testing"

	"github.com/spf13/cobra"
)

// TestCommands_names: each entry of commands lists the name and aliases
// of the command it builds, since a process picks its subcommand by them
// without building the others.
func TestCommands_names(t *testing.T) {
	a := newApp(strings.NewReader(""), &bytes.Buffer{}, &bytes.Buffer{})
	for _, c := range commands {
		cmd := c.new(a)
		if got := append([]string{cmd.Name()}, cmd.Aliases...); !slices.Equal(got, strings.Fields(c.names)) {
			t.Errorf("commands lists %q for a command named %q", c.names, strings.Join(got, " "))
		}
	}
}

// TestRootCommandFor: a root built for args runs them as the full tree
// does (same output, same error), and holds only the subcommand they name,
// or all of them when they name none.
func TestRootCommandFor(t *testing.T) {
	t.Setenv("HOLOMEM_MODEL_DIR", t.TempDir())
	for _, tc := range []struct {
		args []string
		only string // the one subcommand built, or "" for all
	}{
		{[]string{"hook", "--help"}, "hook"},
		{[]string{"--db", "x.db", "--global", "hook", "recall", "--help"}, "hook"},
		{[]string{"--db=x.db", "-n", "ns", "search", "--help"}, "recall"},
		{[]string{"hook", "bogus"}, "hook"},
		{[]string{"graph", "--bogus"}, "graph"},
		{[]string{"bench", "hook", "--help"}, "bench"},
		{[]string{"--db", "hook"}, ""}, // "hook" is the flag's value
		{[]string{"--help"}, ""},
		{[]string{"help", "hook"}, ""},
		{[]string{"--version"}, ""},
		{[]string{"recal"}, ""},
		{[]string{"completion", "bash"}, ""},
		{[]string{}, ""},
	} {
		t.Run(strings.Join(tc.args, " "), func(t *testing.T) {
			execute := func(build func(*app) *cobra.Command) (*cobra.Command, string, string) {
				var out, errb bytes.Buffer
				a := newApp(strings.NewReader(""), &out, &errb)
				defer a.close()
				root := build(a)
				root.SetArgs(tc.args)
				root.SetIn(a.stdin)
				root.SetOut(&out)
				root.SetErr(&errb)
				err := root.ExecuteContext(context.Background())
				if err != nil {
					errb.WriteString("error: " + err.Error())
				}
				return root, out.String(), errb.String()
			}
			root, out, errOut := execute(func(a *app) *cobra.Command { return a.rootCommandFor(tc.args) })
			_, wantOut, wantErr := execute((*app).rootCommand)
			if out != wantOut || errOut != wantErr {
				t.Errorf("built for the args, the root prints\n%s\n%s\nthe full tree prints\n%s\n%s", out, errOut, wantOut, wantErr)
			}
			var built []string
			for _, c := range root.Commands() {
				if c.Name() != "help" && c.Name() != "completion" {
					built = append(built, c.Name())
				}
			}
			if tc.only != "" && !slices.Equal(built, []string{tc.only}) {
				t.Errorf("built %v, want only %s", built, tc.only)
			}
			if tc.only == "" && len(built) != len(commands) {
				t.Errorf("built %d subcommands, want all %d", len(built), len(commands))
			}
		})
	}
}
