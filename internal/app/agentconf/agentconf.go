// Package agentconf writes holomem into the configuration files of coding
// agents (Claude Code, Cursor, VS Code, Codex): the MCP server entry and,
// where the agent injects a command's output into the prompt, the prompt
// hook. It merges into what a file already holds, never clobbering other
// servers, hooks or keys; running it twice changes nothing; a file that is
// not valid JSON or TOML is refused, untouched.
//
// The formats, as each agent documents them (checked December 2026):
//
//   - Claude Code (code.claude.com/docs/en/mcp, .../hooks): project MCP
//     servers in .mcp.json at the project root, {"mcpServers": {NAME:
//     {"command", "args"}}}; user-scope servers in ~/.claude.json, the same
//     "mcpServers" key at its top level. Hooks in .claude/settings.json
//     (project) or ~/.claude/settings.json (user): {"hooks":
//     {"UserPromptSubmit": [{"hooks": [{"type": "command", "command"}]}]}},
//     no matcher for UserPromptSubmit; the command's stdout is added to the
//     prompt's context.
//   - Cursor (cursor.com/docs/mcp): .cursor/mcp.json in the project or
//     ~/.cursor/mcp.json, {"mcpServers": {NAME: {"command", "args"}}}. Its
//     beforeSubmitPrompt hook can allow or block a prompt but not add
//     context, so Cursor gets no hook.
//   - VS Code (code.visualstudio.com/docs/copilot/reference/mcp-configuration):
//     .vscode/mcp.json in the workspace or mcp.json in the user profile
//     (the default profile's folder: ~/.config/Code/User on Linux,
//     ~/Library/Application Support/Code/User on macOS, %APPDATA%\Code\User
//     on Windows), {"servers": {NAME: {"type": "stdio", "command", "args"}}}.
//     VS Code accepts comments in it; this package does not rewrite such a
//     file and says what to add by hand.
//   - Codex (developers.openai.com/codex/mcp): [mcp_servers.NAME] tables
//     with command and args in $CODEX_HOME/config.toml (~/.codex by
//     default), or .codex/config.toml in a project Codex trusts. No prompt
//     hook.
package agentconf

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"path/filepath"
	"slices"
	"strings"
)

// ServerName is the name holomem's entry has in every file.
const ServerName = "holomem"

// Agents are the agents Plan knows, by the name `holomem connect` takes.
var Agents = []string{"claude-code", "cursor", "vscode", "codex"}

// ErrUnknownAgent is returned for an agent not in Agents.
var ErrUnknownAgent = errors.New("unknown agent")

// ErrInvalidFile is returned for a file that holomem cannot merge into
// safely: not valid JSON or TOML (JSON with comments included), or with a
// value of the wrong shape where the entry goes. Nothing is written.
var ErrInvalidFile = errors.New("cannot merge into the file")

// Setup is what to write: the command that starts holomem and its
// arguments, and where the agent's files are.
type Setup struct {
	// Command is the holomem binary: an absolute path, or "holomem" to find
	// it on the agent's PATH.
	Command string
	// Args are the arguments before the subcommand ("--db", PATH), if any.
	Args []string
	// User selects the user's configuration instead of the project's.
	User bool
	// Project is the project's root (where .mcp.json, .cursor/, .vscode/
	// and .codex/ go).
	Project string
	// Home is the user's home directory.
	Home string
	// ConfigDir is the user's configuration directory
	// (os.UserConfigDir: VS Code's profile lives under it).
	ConfigDir string
	// CodexHome is $CODEX_HOME, or "" for Home/.codex.
	CodexHome string
	// NoHook leaves prompt hooks out.
	NoHook bool
}

// Edit is one file's change: its content before (nil when it does not
// exist) and after. New equals Old (byte for byte) when nothing changes.
type Edit struct {
	Path     string
	Old, New []byte
	// What says what the edit does, for a person ("MCP server",
	// "UserPromptSubmit hook").
	What string
}

// Changed reports whether the edit changes the file.
func (e Edit) Changed() bool { return e.Old == nil || !bytes.Equal(e.Old, e.New) }

// ReadFile reads a file, returning nil, nil when it does not exist.
type ReadFile func(path string) ([]byte, error)

// Plan computes the edits that connect agent under s, reading the current
// files with read. It writes nothing.
func Plan(agent string, s Setup, read ReadFile) ([]Edit, error) {
	if !slices.Contains(Agents, agent) {
		return nil, fmt.Errorf("%w %q: give one of %s", ErrUnknownAgent, agent, strings.Join(Agents, ", "))
	}
	mcpArgs := append(slices.Clone(s.Args), "mcp")
	hookCmd := shellJoin(append(append([]string{s.Command}, s.Args...), "hook", "recall", "--deadline", "2s"))
	var specs []spec
	switch agent {
	case "claude-code":
		mcp := filepath.Join(s.Project, ".mcp.json")
		settings := filepath.Join(s.Project, ".claude", "settings.json")
		if s.User {
			mcp = filepath.Join(s.Home, ".claude.json")
			settings = filepath.Join(s.Home, ".claude", "settings.json")
		}
		specs = append(specs, spec{mcp, "MCP server", func(b []byte) ([]byte, error) {
			return setJSONServer(b, "mcpServers", map[string]any{"command": s.Command, "args": mcpArgs})
		}})
		if !s.NoHook {
			specs = append(specs, spec{settings, "UserPromptSubmit hook", func(b []byte) ([]byte, error) {
				return setClaudeHook(b, hookCmd, s.Command)
			}})
		}
	case "cursor":
		p := filepath.Join(s.Project, ".cursor", "mcp.json")
		if s.User {
			p = filepath.Join(s.Home, ".cursor", "mcp.json")
		}
		specs = append(specs, spec{p, "MCP server", func(b []byte) ([]byte, error) {
			return setJSONServer(b, "mcpServers", map[string]any{"command": s.Command, "args": mcpArgs})
		}})
	case "vscode":
		p := filepath.Join(s.Project, ".vscode", "mcp.json")
		if s.User {
			p = filepath.Join(s.ConfigDir, "Code", "User", "mcp.json")
		}
		specs = append(specs, spec{p, "MCP server", func(b []byte) ([]byte, error) {
			return setJSONServer(b, "servers", map[string]any{"type": "stdio", "command": s.Command, "args": mcpArgs})
		}})
	case "codex":
		p := filepath.Join(s.Project, ".codex", "config.toml")
		if s.User {
			home := s.CodexHome
			if home == "" {
				home = filepath.Join(s.Home, ".codex")
			}
			p = filepath.Join(home, "config.toml")
		}
		specs = append(specs, spec{p, "MCP server", func(b []byte) ([]byte, error) {
			return setTOMLServer(b, s.Command, mcpArgs)
		}})
	}
	edits := make([]Edit, 0, len(specs))
	for _, sp := range specs {
		old, err := read(sp.path)
		if err != nil {
			return nil, fmt.Errorf("read %s: %w", sp.path, err)
		}
		nw, err := sp.merge(old)
		if err != nil {
			return nil, fmt.Errorf("%s: %w: %v; nothing was written", sp.path, ErrInvalidFile, err)
		}
		edits = append(edits, Edit{Path: sp.path, Old: old, New: nw, What: sp.what})
	}
	return edits, nil
}

// spec is one file to merge into.
type spec struct {
	path  string
	what  string
	merge func(old []byte) ([]byte, error)
}

// setJSONServer sets root[key][ServerName] to fields, keeping the entry's
// other keys (an "env" the user added) and every other server.
func setJSONServer(old []byte, key string, fields map[string]any) ([]byte, error) {
	root, err := parseObject(old)
	if err != nil {
		return nil, fmt.Errorf("not valid JSON (comments are not supported): %w", err)
	}
	servers, err := root.child(key)
	if err != nil {
		return nil, err
	}
	entry, err := servers.child(ServerName)
	if err != nil {
		return nil, fmt.Errorf("%q: %w", key, err)
	}
	for _, k := range []string{"type", "command", "args"} {
		if v, ok := fields[k]; ok {
			entry.set(k, jsonValue(v))
		}
	}
	servers.set(ServerName, entry.marshal())
	root.set(key, servers.marshal())
	return render(old, root)
}

// setClaudeHook makes root.hooks.UserPromptSubmit run cmd: a hook of
// holomem's already there (a command running "hook recall" of a program
// named holomem, by any path, or of self) gets cmd, keeping its other
// keys; else a new entry is appended after the hooks already there.
func setClaudeHook(old []byte, cmd, self string) ([]byte, error) {
	root, err := parseObject(old)
	if err != nil {
		return nil, fmt.Errorf("not valid JSON (comments are not supported): %w", err)
	}
	hooks, err := root.child("hooks")
	if err != nil {
		return nil, err
	}
	var groups []json.RawMessage
	if raw, ok := hooks.get("UserPromptSubmit"); ok && string(bytes.TrimSpace(raw)) != "null" {
		if err := json.Unmarshal(raw, &groups); err != nil {
			return nil, fmt.Errorf(`"hooks"."UserPromptSubmit" is not an array`)
		}
	}
	found := false
	for gi, g := range groups {
		group, err := parseObject(g)
		if err != nil {
			continue // not ours to judge
		}
		var list []json.RawMessage
		if raw, ok := group.get("hooks"); !ok || json.Unmarshal(raw, &list) != nil {
			continue
		}
		for hi, h := range list {
			hook, err := parseObject(h)
			if err != nil {
				continue
			}
			var c string
			if raw, ok := hook.get("command"); !ok || json.Unmarshal(raw, &c) != nil || !isHolomemHook(c, self) {
				continue
			}
			found = true
			hook.set("command", jsonValue(cmd))
			list[hi] = hook.marshal()
		}
		group.set("hooks", jsonValue(list))
		groups[gi] = group.marshal()
	}
	if !found {
		hook := object{{"type", jsonValue("command")}, {"command", jsonValue(cmd)}}
		group := object{{"hooks", jsonValue([]json.RawMessage{hook.marshal()})}}
		groups = append(groups, group.marshal())
	}
	hooks.set("UserPromptSubmit", jsonValue(groups))
	root.set("hooks", hooks.marshal())
	return render(old, root)
}

// isHolomemHook reports whether a hook command runs holomem's prompt
// hook: its program is self or named holomem (any path), and it runs
// "hook recall".
func isHolomemHook(cmd, self string) bool {
	f := shellSplit(cmd)
	if len(f) < 3 {
		return false
	}
	base := filepath.Base(f[0])
	if f[0] != self && base != "holomem" && base != "holomem.exe" {
		return false
	}
	for i := 1; i+1 < len(f); i++ {
		if f[i] == "hook" && f[i+1] == "recall" {
			return true
		}
	}
	return false
}

// shellJoin quotes args for a POSIX shell (Claude Code runs hook commands
// with one): words of safe characters bare, others in single quotes.
func shellJoin(args []string) string {
	out := make([]string, len(args))
	for i, a := range args {
		if a != "" && strings.Trim(a, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789/._-+=:,@") == "" {
			out[i] = a
			continue
		}
		out[i] = "'" + strings.ReplaceAll(a, "'", `'\''`) + "'"
	}
	return strings.Join(out, " ")
}

// shellSplit splits a command line into words, honouring single and
// double quotes and backslashes: enough to recognise a command that
// shellJoin wrote or a person typed.
func shellSplit(s string) []string {
	var out []string
	var cur strings.Builder
	in := false
	var quote rune
	for i := 0; i < len(s); i++ {
		c := rune(s[i])
		switch {
		case quote == '\'':
			if c == '\'' {
				quote = 0
			} else {
				cur.WriteByte(s[i])
			}
		case quote == '"':
			if c == '"' {
				quote = 0
			} else if c == '\\' && i+1 < len(s) {
				i++
				cur.WriteByte(s[i])
			} else {
				cur.WriteByte(s[i])
			}
		case c == '\'' || c == '"':
			quote, in = c, true
		case c == '\\' && i+1 < len(s):
			i++
			cur.WriteByte(s[i])
			in = true
		case c == ' ' || c == '\t' || c == '\n':
			if in {
				out = append(out, cur.String())
				cur.Reset()
				in = false
			}
		default:
			cur.WriteByte(s[i])
			in = true
		}
	}
	if in {
		out = append(out, cur.String())
	}
	return out
}
