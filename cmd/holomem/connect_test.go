package main

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// connectCLI runs holomem without --db (cli always passes one, which
// connect would pass on).
type connectCLI struct{ t *testing.T }

func (c connectCLI) run(args ...string) (string, string, int) {
	c.t.Helper()
	var out, errb bytes.Buffer
	code := run(c.t.Context(), args, strings.NewReader(""), &out, &errb)
	return out.String(), errb.String(), code
}

func (c connectCLI) ok(args ...string) string {
	c.t.Helper()
	out, errs, code := c.run(args...)
	if code != 0 {
		c.t.Fatalf("holomem %v: exit %d\n%s%s", args, code, out, errs)
	}
	return out
}

// connectEnv is a project directory and a home of its own for `holomem
// connect`, so no real configuration is read or written.
func connectEnv(t *testing.T) (c connectCLI, project, home string) {
	t.Helper()
	c = connectCLI{t}
	t.Setenv("HOLOMEM_DB", "")
	project, home = t.TempDir(), t.TempDir()
	t.Setenv("HOME", home)
	t.Setenv("XDG_CONFIG_HOME", filepath.Join(home, ".config"))
	t.Setenv("CODEX_HOME", "")
	return c, project, home
}

func readFile(t *testing.T, path string) string {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

func writeFile(t *testing.T, path, content string) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, []byte(content), 0o644); err != nil {
		t.Fatal(err)
	}
}

const holomemBin = "/usr/local/bin/holomem"

// TestCLI_Connect: `connect claude-code` merges the server into a
// .mcp.json holding another server and adds the prompt hook; --dry-run
// prints the diff and writes nothing; a second run changes nothing.
func TestCLI_Connect(t *testing.T) {
	c, project, _ := connectEnv(t)
	mcpPath := filepath.Join(project, ".mcp.json")
	settings := filepath.Join(project, ".claude", "settings.json")
	const other = `{"mcpServers": {"github": {"command": "npx", "args": ["-y", "@modelcontextprotocol/server-github"]}}}` + "\n"
	writeFile(t, mcpPath, other)
	args := []string{"connect", "claude-code", "--project", project, "--command", holomemBin}

	out := c.ok(append(args, "--dry-run")...)
	for _, want := range []string{"+      \"command\": \"" + holomemBin + "\"", "+            \"command\": \"" + holomemBin + " hook recall --deadline 2s\"", "dry run: nothing was written"} {
		if !strings.Contains(out, want) {
			t.Errorf("--dry-run output lacks %q:\n%s", want, out)
		}
	}
	if got := readFile(t, mcpPath); got != other {
		t.Errorf("--dry-run changed .mcp.json:\n%s", got)
	}
	if _, err := os.Stat(settings); err == nil {
		t.Error("--dry-run created .claude/settings.json")
	}

	c.ok(args...)
	var mcp struct {
		MCPServers map[string]struct {
			Command string   `json:"command"`
			Args    []string `json:"args"`
		} `json:"mcpServers"`
	}
	if err := json.Unmarshal([]byte(readFile(t, mcpPath)), &mcp); err != nil {
		t.Fatal(err)
	}
	if h := mcp.MCPServers["holomem"]; h.Command != holomemBin || strings.Join(h.Args, " ") != "mcp" {
		t.Errorf("holomem entry %+v", h)
	}
	if g := mcp.MCPServers["github"]; g.Command != "npx" || len(g.Args) != 2 {
		t.Errorf("the other server became %+v", g)
	}
	if s := readFile(t, settings); !strings.Contains(s, `"UserPromptSubmit"`) || !strings.Contains(s, holomemBin+" hook recall") {
		t.Errorf("settings.json:\n%s", s)
	}

	before := readFile(t, mcpPath) + readFile(t, settings)
	out = c.ok(args...)
	if strings.Count(out, "unchanged") != 2 || readFile(t, mcpPath)+readFile(t, settings) != before {
		t.Errorf("second run changed something:\n%s", out)
	}
}

// TestCLI_ConnectOthers: Cursor and VS Code (project and user), Codex
// (user, $CODEX_HOME), --db passed on as an absolute path, --json.
func TestCLI_ConnectOthers(t *testing.T) {
	c, project, home := connectEnv(t)
	codexHome := filepath.Join(home, "codex-home")
	t.Setenv("CODEX_HOME", codexHome)
	writeFile(t, filepath.Join(codexHome, "config.toml"), "# mine\nmodel = \"o3\"\n")
	cases := []struct {
		args []string
		path string
		want []string
	}{
		{[]string{"connect", "cursor"}, filepath.Join(project, ".cursor", "mcp.json"), []string{`"mcpServers"`}},
		{[]string{"connect", "cursor", "--user"}, filepath.Join(home, ".cursor", "mcp.json"), []string{`"mcpServers"`}},
		{[]string{"connect", "vscode"}, filepath.Join(project, ".vscode", "mcp.json"), []string{`"servers"`, `"type": "stdio"`}},
		{[]string{"connect", "vscode", "--user"}, filepath.Join(home, ".config", "Code", "User", "mcp.json"), []string{`"servers"`}},
		{[]string{"connect", "codex", "--user"}, filepath.Join(codexHome, "config.toml"), []string{"# mine\nmodel = \"o3\"\n\n[mcp_servers.holomem]\ncommand = \"" + holomemBin + "\"\n"}},
		{[]string{"connect", "codex"}, filepath.Join(project, ".codex", "config.toml"), []string{"[mcp_servers.holomem]"}},
	}
	for _, tc := range cases {
		var rep connectReport
		out := c.ok(append(tc.args, "--json", "--project", project, "--command", holomemBin)...)
		if err := json.Unmarshal([]byte(out), &rep); err != nil {
			t.Fatalf("%v --json: %v\n%s", tc.args, err, out)
		}
		if len(rep.Files) != 1 || rep.Files[0].Path != tc.path || !rep.Files[0].Changed {
			t.Errorf("%v: %+v, want a change of %s", tc.args, rep, tc.path)
			continue
		}
		got := readFile(t, tc.path)
		for _, w := range append(tc.want, holomemBin, "mcp") {
			if !strings.Contains(got, w) {
				t.Errorf("%v: %s lacks %q:\n%s", tc.args, tc.path, w, got)
			}
		}
	}
	// The database of this command line goes with the entry.
	db := filepath.Join(t.TempDir(), "team.db")
	cl := &cli{t: t, db: db}
	cl.ok("connect", "cursor", "--project", project, "--command", holomemBin, "--no-hook")
	if got := readFile(t, filepath.Join(project, ".cursor", "mcp.json")); !strings.Contains(got, `"--db",`) || !strings.Contains(got, db) {
		t.Errorf("--db not passed on:\n%s", got)
	}
}

// TestCLI_ConnectRefusesABrokenFile: a config that is not valid JSON (here
// with a comment) is left as it was, and the command fails (exit 4) naming
// the file.
func TestCLI_ConnectRefusesABrokenFile(t *testing.T) {
	c, project, _ := connectEnv(t)
	path := filepath.Join(project, ".vscode", "mcp.json")
	const jsonc = "{\n  // my servers\n  \"servers\": {}\n}\n"
	writeFile(t, path, jsonc)
	_, errs, code := c.run("connect", "vscode", "--project", project, "--command", holomemBin)
	if code != exitInvalid || !strings.Contains(errs, path) || !strings.Contains(errs, "nothing was written") {
		t.Errorf("exit %d, stderr %q; want %d naming %s", code, errs, exitInvalid, path)
	}
	if got := readFile(t, path); got != jsonc {
		t.Errorf("the file was changed:\n%s", got)
	}
	if entries, _ := os.ReadDir(filepath.Dir(path)); len(entries) != 1 {
		t.Errorf("files left beside it: %v", entries)
	}
	if _, _, code := c.run("connect", "zed"); code != exitUsage {
		t.Errorf("unknown agent: exit %d, want %d", code, exitUsage)
	}
}
