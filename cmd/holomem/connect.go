package main

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strings"

	"github.com/spf13/cobra"

	"github.com/holomem/holomem"
	"github.com/holomem/holomem/backend"
	"github.com/holomem/holomem/internal/app/agentconf"
)

func (a *app) connectCmd() *cobra.Command {
	var user, dryRun, noHook bool
	var command, project string
	cmd := &cobra.Command{
		Use:   "connect claude-code|cursor|vscode|codex",
		Short: "Add holomem to an agent's config: the MCP server and, for Claude Code, the prompt hook",
		Long: `Writes holomem's MCP server entry into the agent's configuration, and for
Claude Code also the UserPromptSubmit hook that injects memory into every
prompt. It merges into what the files hold (other servers, hooks and keys
stay; a holomem entry already there is updated) and running it twice changes
nothing. A file that is not valid JSON or TOML (a JSON file with comments
too) is left alone and the command fails, saying what to add by hand.

Files, by default the project's (the git top level, else the current
directory), with --user the user's:

  claude-code  .mcp.json and .claude/settings.json (hook)
               --user: ~/.claude.json and ~/.claude/settings.json
  cursor       .cursor/mcp.json            --user: ~/.cursor/mcp.json
  vscode       .vscode/mcp.json            --user: the default profile's mcp.json
                                           (~/.config/Code/User on Linux)
  codex        .codex/config.toml          --user: $CODEX_HOME/config.toml
                                           (~/.codex/config.toml)

The entry runs this holomem binary by its absolute path (--command holomem
runs the one on the agent's PATH instead) with "mcp"; a --db given to this
command is passed on. --dry-run prints the changes as a diff and writes
nothing.`,
		GroupID: "agents",
		Args: func(_ *cobra.Command, args []string) error {
			if len(args) != 1 {
				return usagef("connect needs one agent: %s", strings.Join(agentconf.Agents, ", "))
			}
			return nil
		},
		ValidArgs: agentconf.Agents,
		RunE: func(cmd *cobra.Command, args []string) error {
			s, warn, err := a.connectSetup(cmd, command, project, user, noHook)
			if err != nil {
				return err
			}
			edits, err := agentconf.Plan(args[0], s, readIfExists)
			switch {
			case errors.Is(err, agentconf.ErrUnknownAgent):
				return usagef("%v", err)
			case errors.Is(err, agentconf.ErrInvalidFile):
				return fmt.Errorf("%w: %v", holomem.ErrInvalid, err)
			case err != nil:
				return err
			}
			if !dryRun {
				for _, e := range edits {
					if e.Changed() {
						if err := writeConfig(e.Path, e.New, user); err != nil {
							return err
						}
					}
				}
			}
			return a.printConnect(args[0], s, edits, dryRun, warn)
		},
	}
	f := cmd.Flags()
	f.BoolVar(&user, "user", false, "write the user's configuration instead of the project's")
	f.BoolVar(&dryRun, "dry-run", false, "print the changes as a diff; write nothing")
	f.StringVar(&command, "command", "", "the command the agent runs (default: this binary's absolute path; \"holomem\": the one on PATH)")
	f.StringVar(&project, "project", "", "the project's root (default: the git top level, else the current directory)")
	f.BoolVar(&noHook, "no-hook", false, "leave the prompt hook out (Claude Code)")
	return cmd
}

// connectSetup resolves where the agent's files are and what command
// they run; warn is a note for the user (a binary that will not last).
func (a *app) connectSetup(cmd *cobra.Command, command, project string, user, noHook bool) (s agentconf.Setup, warn string, err error) {
	s = agentconf.Setup{User: user, NoHook: noHook, CodexHome: os.Getenv("CODEX_HOME")}
	if s.Home, err = os.UserHomeDir(); err != nil {
		return s, "", fmt.Errorf("connect: no home directory: %w", err)
	}
	s.ConfigDir, _ = os.UserConfigDir()
	if s.ConfigDir == "" {
		s.ConfigDir = filepath.Join(s.Home, ".config")
	}
	switch command {
	case "":
		exe, err := os.Executable()
		if err != nil {
			return s, "", fmt.Errorf("connect: cannot tell where this holomem is (%w): give --command", err)
		}
		if r, err := filepath.EvalSymlinks(exe); err == nil {
			exe = r
		}
		s.Command = exe
		if strings.Contains(exe, string(filepath.Separator)+"go-build") {
			warn = "this holomem is a temporary build (go run): install it (go build -o ~/.local/bin/holomem ./cmd/holomem) and connect again, or pass --command holomem"
		}
	default:
		s.Command = command
	}
	if project == "" {
		wd, err := os.Getwd()
		if err != nil {
			return s, "", fmt.Errorf("connect: %w", err)
		}
		project = wd
		if top := gitTopLevel(wd); top != "" {
			project = top
		}
	}
	if s.Project, err = filepath.Abs(project); err != nil {
		return s, "", fmt.Errorf("connect: %w", err)
	}
	// A database named on this command line is the one the agent must use
	// (the agent starts holomem elsewhere, without this shell's flags).
	if cmd.Flags().Changed("db") {
		db := a.dbPath
		if backend.IsFile(db) {
			if abs, err := filepath.Abs(sqlitePath(db)); err == nil {
				db = abs
			}
		}
		s.Args = []string{"--db", db}
	}
	return s, warn, nil
}

// readIfExists reads a file; a missing one is nil, nil.
func readIfExists(path string) ([]byte, error) {
	b, err := os.ReadFile(path)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	}
	return b, err
}

// writeConfig replaces path with b atomically (a temporary file renamed
// over it), keeping an existing file's mode; a new file is private to the
// user in the user's configuration, readable by all in a project (it is
// meant to be committed).
func writeConfig(path string, b []byte, user bool) error {
	mode := fs.FileMode(0o644)
	if user {
		mode = 0o600
	}
	if st, err := os.Stat(path); err == nil {
		mode = st.Mode().Perm()
	}
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		return fmt.Errorf("connect: %w", err)
	}
	tmp, err := os.CreateTemp(filepath.Dir(path), "."+filepath.Base(path)+".holomem-*")
	if err != nil {
		return fmt.Errorf("connect: %w", err)
	}
	defer os.Remove(tmp.Name()) // after the rename, a no-op
	if _, err := tmp.Write(b); err != nil {
		tmp.Close()
		return fmt.Errorf("connect: write %s: %w", path, err)
	}
	if err := tmp.Chmod(mode); err != nil {
		tmp.Close()
		return fmt.Errorf("connect: %w", err)
	}
	if err := tmp.Close(); err != nil {
		return fmt.Errorf("connect: write %s: %w", path, err)
	}
	if err := os.Rename(tmp.Name(), path); err != nil {
		return fmt.Errorf("connect: %w", err)
	}
	return nil
}

// connectReport is `connect --json`'s output.
type connectReport struct {
	Agent   string          `json:"agent"`
	Command string          `json:"command"`
	DryRun  bool            `json:"dry_run"`
	Files   []connectedFile `json:"files"`
	Note    string          `json:"note,omitempty"`
	Warning string          `json:"warning,omitempty"`
}

type connectedFile struct {
	Path    string `json:"path"`
	What    string `json:"what"`
	Changed bool   `json:"changed"`
	Created bool   `json:"created"`
	Diff    string `json:"diff,omitempty"`
}

func (a *app) printConnect(agent string, s agentconf.Setup, edits []agentconf.Edit, dryRun bool, warn string) error {
	rep := connectReport{Agent: agent, Command: s.Command, DryRun: dryRun, Note: connectNote(agent, s.User), Warning: warn}
	for _, e := range edits {
		f := connectedFile{Path: e.Path, What: e.What, Changed: e.Changed(), Created: e.Old == nil}
		if dryRun {
			f.Diff = agentconf.Diff(e)
		}
		rep.Files = append(rep.Files, f)
	}
	return a.out(rep, func(w io.Writer) {
		for _, f := range rep.Files {
			verb := "unchanged (already set)"
			switch {
			case f.Changed && f.Created && dryRun:
				verb = "would be created with the " + f.What
			case f.Changed && dryRun:
				verb = "would get the " + f.What
			case f.Changed && f.Created:
				verb = "created with the " + f.What
			case f.Changed:
				verb = "now has the " + f.What
			}
			fmt.Fprintf(w, "%s: %s\n", f.Path, verb)
			if f.Diff != "" {
				fmt.Fprint(w, f.Diff)
			}
		}
		if dryRun {
			fmt.Fprintln(w, "dry run: nothing was written")
		}
		if rep.Warning != "" {
			fmt.Fprintf(w, "warning: %s\n", rep.Warning)
		}
		fmt.Fprintln(w, rep.Note)
	})
}

// connectNote says what the user does next.
func connectNote(agent string, user bool) string {
	switch agent {
	case "claude-code":
		if user {
			return "Restart Claude Code; /mcp lists holomem. (Claude Code keeps ~/.claude.json up to date while it runs: if /mcp does not list holomem, quit it and connect again.)"
		}
		return "Restart Claude Code in this project and approve the holomem server it asks about (project servers need approval); /mcp lists it."
	case "cursor":
		return "Restart Cursor (or reload its MCP settings); holomem appears among the MCP servers."
	case "vscode":
		return "In VS Code, run \"MCP: List Servers\" and start holomem (or reload the window)."
	case "codex":
		if user {
			return "Start Codex; /mcp lists holomem."
		}
		return "Codex reads .codex/config.toml only in a project it trusts; use --user otherwise. /mcp lists holomem."
	}
	return ""
}
