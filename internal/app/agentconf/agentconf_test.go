package agentconf

import (
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/BurntSushi/toml"
)

const bin = "/opt/holomem/bin/holomem"

// other is a holomem binary under another name (a test or a renamed build).
const other = "/tmp/build/hm3"

// files is a fake file system for Plan: path -> content (absent: no file).
type files map[string][]byte

func (f files) read(p string) ([]byte, error) { return f[p], nil }

func fixture(t *testing.T, name string) []byte {
	t.Helper()
	b, err := os.ReadFile(filepath.Join("testdata", name))
	if err != nil {
		t.Fatal(err)
	}
	return b
}

func setup(user bool) Setup {
	return Setup{Command: bin, User: user, Project: "/p", Home: "/h", ConfigDir: "/h/.config"}
}

// decode parses a JSON or TOML file into generic values.
func decode(t *testing.T, path string, b []byte) map[string]any {
	t.Helper()
	m := map[string]any{}
	var err error
	if strings.HasSuffix(path, ".toml") {
		_, err = toml.Decode(string(b), &m)
	} else {
		err = json.Unmarshal(b, &m)
	}
	if err != nil {
		t.Fatalf("%s does not parse: %v\n%s", path, err, b)
	}
	return m
}

// at walks keys through nested maps.
func at(m map[string]any, keys ...string) any {
	var v any = m
	for _, k := range keys {
		mm, ok := v.(map[string]any)
		if !ok {
			return nil
		}
		v = mm[k]
	}
	return v
}

// without returns a copy of m with the value at keys removed.
func without(m map[string]any, keys ...string) map[string]any {
	b, _ := json.Marshal(m)
	var c map[string]any
	json.Unmarshal(b, &c) //nolint:errcheck // it was just marshalled
	cur := c
	for _, k := range keys[:len(keys)-1] {
		next, ok := cur[k].(map[string]any)
		if !ok {
			return c
		}
		cur = next
	}
	delete(cur, keys[len(keys)-1])
	return c
}

// TestPlan_MergesKeepingTheRest: each agent's file, holding other servers,
// hooks and keys holomem does not know, gets holomem's entry (the entry's
// own extra keys kept) and nothing else changes; a second run changes
// nothing.
func TestPlan_MergesKeepingTheRest(t *testing.T) {
	tests := []struct {
		agent   string
		user    bool
		path    string // the file the fixture is
		fixture string
		entry   []string // where holomem's entry is
		want    map[string]any
		keep    []string // keys of holomem's entry that must survive
	}{
		{"claude-code", false, "/p/.mcp.json", "claude-mcp.json", []string{"mcpServers", "holomem"},
			map[string]any{"command": bin, "args": []any{"mcp"}}, []string{"env"}},
		{"claude-code", true, "/h/.claude.json", "claude-user.json", []string{"mcpServers", "holomem"},
			map[string]any{"command": bin, "args": []any{"mcp"}}, nil},
		{"cursor", false, "/p/.cursor/mcp.json", "cursor-mcp.json", []string{"mcpServers", "holomem"},
			map[string]any{"command": bin, "args": []any{"mcp"}}, nil},
		{"cursor", true, "/h/.cursor/mcp.json", "cursor-mcp.json", []string{"mcpServers", "holomem"},
			map[string]any{"command": bin, "args": []any{"mcp"}}, nil},
		{"vscode", false, "/p/.vscode/mcp.json", "vscode-mcp.json", []string{"servers", "holomem"},
			map[string]any{"type": "stdio", "command": bin, "args": []any{"mcp"}}, nil},
		{"vscode", true, "/h/.config/Code/User/mcp.json", "vscode-mcp.json", []string{"servers", "holomem"},
			map[string]any{"type": "stdio", "command": bin, "args": []any{"mcp"}}, nil},
		{"codex", false, "/p/.codex/config.toml", "codex-config.toml", []string{"mcp_servers", "holomem"},
			map[string]any{"command": bin, "args": []any{"mcp"}}, []string{"env", "startup_timeout_sec"}},
		{"codex", true, "/h/.codex/config.toml", "codex-config-without.toml", []string{"mcp_servers", "holomem"},
			map[string]any{"command": bin, "args": []any{"mcp"}}, nil},
	}
	for _, tc := range tests {
		t.Run(tc.agent+"/"+tc.fixture, func(t *testing.T) {
			fs := files{tc.path: fixture(t, tc.fixture)}
			s := setup(tc.user)
			s.NoHook = true
			edits, err := Plan(tc.agent, s, fs.read)
			if err != nil {
				t.Fatal(err)
			}
			if len(edits) != 1 || edits[0].Path != tc.path || !edits[0].Changed() {
				t.Fatalf("edits %+v, want one change of %s", edits, tc.path)
			}
			before, after := decode(t, tc.path, edits[0].Old), decode(t, tc.path, edits[0].New)
			entry, _ := at(after, tc.entry...).(map[string]any)
			for k, v := range tc.want {
				if !reflect.DeepEqual(entry[k], v) {
					t.Errorf("%s.%s = %#v, want %#v", strings.Join(tc.entry, "."), k, entry[k], v)
				}
			}
			old, _ := at(before, tc.entry...).(map[string]any)
			for _, k := range tc.keep {
				if entry[k] == nil || !reflect.DeepEqual(entry[k], old[k]) {
					t.Errorf("the entry's %q became %#v, want it kept as %#v", k, entry[k], old[k])
				}
			}
			if !reflect.DeepEqual(without(before, tc.entry...), without(after, tc.entry...)) {
				t.Errorf("something besides holomem's entry changed:\nbefore %v\nafter  %v", without(before, tc.entry...), without(after, tc.entry...))
			}
			fs[tc.path] = edits[0].New
			again, err := Plan(tc.agent, s, fs.read)
			if err != nil || again[0].Changed() {
				t.Errorf("second run: %v, changed %v:\n%s", err, again[0].Changed(), Diff(again[0]))
			}
		})
	}
}

// TestPlan_ClaudeHook: the UserPromptSubmit hook joins the hooks already
// there (a hook of holomem's, by any path, is updated in place, keeping
// its timeout), and the rest of the settings stay.
func TestPlan_ClaudeHook(t *testing.T) {
	want := bin + " hook recall --deadline 2s"
	for _, tc := range []struct {
		fixture string
		groups  int // UserPromptSubmit entries after
	}{
		{"claude-settings.json", 2},
		{"claude-settings-old-hook.json", 2},
		{"", 1},
	} {
		t.Run(tc.fixture, func(t *testing.T) {
			fs := files{}
			if tc.fixture != "" {
				fs["/p/.claude/settings.json"] = fixture(t, tc.fixture)
			}
			edits, err := Plan("claude-code", setup(false), fs.read)
			if err != nil {
				t.Fatal(err)
			}
			if len(edits) != 2 || edits[1].Path != "/p/.claude/settings.json" {
				t.Fatalf("edits %+v", edits)
			}
			after := decode(t, "settings.json", edits[1].New)
			groups, _ := at(after, "hooks", "UserPromptSubmit").([]any)
			if len(groups) != tc.groups {
				t.Fatalf("%d UserPromptSubmit entries, want %d: %s", len(groups), tc.groups, edits[1].New)
			}
			ours := 0
			for _, g := range groups {
				for _, h := range at(g.(map[string]any), "hooks").([]any) {
					hm := h.(map[string]any)
					if hm["command"] == want {
						ours++
						if tc.fixture == "claude-settings-old-hook.json" && hm["timeout"] != 5.0 {
							t.Errorf("the updated hook lost its timeout: %v", hm)
						}
					} else if isHolomemHook(hm["command"].(string), bin) {
						t.Errorf("an old holomem hook stayed: %v", hm)
					}
				}
			}
			if ours != 1 {
				t.Errorf("%d hooks run %q, want 1: %s", ours, want, edits[1].New)
			}
			if tc.fixture != "" {
				before := decode(t, "settings.json", edits[1].Old)
				if !reflect.DeepEqual(without(before, "hooks", "UserPromptSubmit"), without(after, "hooks", "UserPromptSubmit")) {
					t.Errorf("settings besides UserPromptSubmit changed:\n%s", edits[1].New)
				}
			}
			fs["/p/.mcp.json"], fs["/p/.claude/settings.json"] = edits[0].New, edits[1].New
			again, err := Plan("claude-code", setup(false), fs.read)
			if err != nil || again[0].Changed() || again[1].Changed() {
				t.Errorf("second run: %v\n%s%s", err, Diff(again[0]), Diff(again[1]))
			}
		})
	}
}

// TestPlan_NewFiles: with no files, each agent's files are created, in the
// documented places, and a command with spaces is quoted in the hook.
func TestPlan_NewFiles(t *testing.T) {
	want := map[string][]string{
		"claude-code": {"/p/.mcp.json", "/p/.claude/settings.json"},
		"cursor":      {"/p/.cursor/mcp.json"},
		"vscode":      {"/p/.vscode/mcp.json"},
		"codex":       {"/p/.codex/config.toml"},
	}
	for agent, paths := range want {
		s := setup(false)
		s.Command = "/Users/a b/holomem"
		edits, err := Plan(agent, s, files{}.read)
		if err != nil {
			t.Fatal(err)
		}
		var got []string
		for _, e := range edits {
			got = append(got, e.Path)
			if e.Old != nil || !e.Changed() {
				t.Errorf("%s: %s is not new", agent, e.Path)
			}
			decode(t, e.Path, e.New)
		}
		if !reflect.DeepEqual(got, paths) {
			t.Errorf("%s writes %v, want %v", agent, got, paths)
		}
	}
	edits, _ := Plan("claude-code", Setup{Command: "/Users/a b/holomem", Project: "/p", Args: []string{"--db", "/d/x y.db"}}, files{}.read)
	if !strings.Contains(string(edits[1].New), `"'/Users/a b/holomem' --db '/d/x y.db' hook recall --deadline 2s"`) {
		t.Errorf("hook command not quoted for the shell: %s", edits[1].New)
	}
	if !isHolomemHook("'/Users/a b/holomem' --db '/d/x y.db' hook recall --deadline 2s", "") {
		t.Error("the quoted hook is not recognised as holomem's")
	}
}

// TestPlan_RefusesWhatItCannotMerge: a file that is not valid JSON or
// TOML, or whose servers are not an object, or a Codex entry written as an
// inline table, is refused with ErrInvalidFile.
func TestPlan_RefusesWhatItCannotMerge(t *testing.T) {
	for _, tc := range []struct {
		agent, path, fixture, says string
	}{
		{"cursor", "/p/.cursor/mcp.json", "not-json.json", "not valid JSON"},
		{"vscode", "/p/.vscode/mcp.json", "vscode-mcp-comments.json", "comments"},
		{"claude-code", "/p/.mcp.json", "servers-not-object.json", "not a JSON object"},
		{"claude-code", "/p/.claude/settings.json", "servers-not-object.json", ""},
		{"codex", "/p/.codex/config.toml", "codex-invalid.toml", "not valid TOML"},
		{"codex", "/p/.codex/config.toml", "codex-inline.toml", "by hand"},
	} {
		t.Run(tc.fixture, func(t *testing.T) {
			_, err := Plan(tc.agent, setup(false), files{tc.path: fixture(t, tc.fixture)}.read)
			if tc.says == "" { // settings.json with an unrelated mcpServers key: fine
				if err != nil {
					t.Errorf("refused: %v", err)
				}
				return
			}
			if !errors.Is(err, ErrInvalidFile) || !strings.Contains(err.Error(), tc.says) || !strings.Contains(err.Error(), tc.path) {
				t.Errorf("error %v; want ErrInvalidFile naming %s and saying %q", err, tc.path, tc.says)
			}
		})
	}
	if _, err := Plan("zed", setup(false), files{}.read); !errors.Is(err, ErrUnknownAgent) {
		t.Errorf("unknown agent: %v", err)
	}
}

// TestSetTOMLServer_Golden: the Codex edit touches only holomem's command
// and args lines, keeping comments and order.
func TestSetTOMLServer_Golden(t *testing.T) {
	got, err := setTOMLServer(fixture(t, "codex-config.toml"), bin, []string{"mcp"})
	if err != nil {
		t.Fatal(err)
	}
	want := strings.Replace(string(fixture(t, "codex-config.toml")),
		"command = \"/old/path/holomem\"\nargs = [\n  \"mcp\", # the server\n]\n",
		"command = \""+bin+"\"\nargs = [\"mcp\"]\n", 1)
	if string(got) != want {
		t.Errorf("got\n%s\nwant\n%s", got, want)
	}
}

// TestPlan_HookOfAnyName: a binary not named holomem still finds its own
// hook on the second run instead of adding it again.
func TestPlan_HookOfAnyName(t *testing.T) {
	s := setup(false)
	s.Command = other
	fs := files{}
	for run := range 2 {
		edits, err := Plan("claude-code", s, fs.read)
		if err != nil {
			t.Fatal(err)
		}
		if run == 1 && (edits[0].Changed() || edits[1].Changed()) {
			t.Errorf("second run changes:\n%s%s", Diff(edits[0]), Diff(edits[1]))
		}
		for _, e := range edits {
			fs[e.Path] = e.New
		}
	}
	if n := strings.Count(string(fs["/p/.claude/settings.json"]), "hook recall"); n != 1 {
		t.Errorf("%d hooks after two runs, want 1:\n%s", n, fs["/p/.claude/settings.json"])
	}
}

func TestDiff(t *testing.T) {
	e := Edit{Path: "x.json", Old: []byte("a\nb\nc\n"), New: []byte("a\nB\nc\n")}
	if got, want := Diff(e), "--- a/x.json\n+++ b/x.json\n@@ -1,3 +1,3 @@\n a\n-b\n+B\n c\n"; got != want {
		t.Errorf("Diff = %q, want %q", got, want)
	}
	if got := Diff(Edit{Path: "n", New: []byte("x\n")}); got != "--- /dev/null\n+++ b/n\n@@ -0,0 +1,1 @@\n+x\n" {
		t.Errorf("Diff of a new file = %q", got)
	}
	if Diff(Edit{Path: "s", Old: []byte("x"), New: []byte("x")}) != "" {
		t.Error("Diff of no change is not empty")
	}
}

func FuzzShellSplitJoin(f *testing.F) {
	for _, s := range []string{"/a b/holomem", "it's", `a"b`, "x\\y", ""} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		if strings.ContainsAny(s, "\x00") {
			return
		}
		words := []string{s, "hook", "recall"}
		if got := shellSplit(shellJoin(words)); !reflect.DeepEqual(got, words) {
			t.Errorf("shellSplit(shellJoin(%q)) = %q", words, got)
		}
	})
}
