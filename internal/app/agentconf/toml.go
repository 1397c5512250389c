package agentconf

import (
	"errors"
	"fmt"
	"reflect"
	"regexp"
	"slices"
	"strings"

	"github.com/BurntSushi/toml"
)

// tableHeader matches the header of holomem's table in a Codex config:
// [mcp_servers.holomem], with the name bare or quoted, and a comment after.
var tableHeader = regexp.MustCompile(`^\s*\[\s*mcp_servers\s*\.\s*(?:holomem|"holomem"|'holomem')\s*\]\s*(?:#.*)?$`)

// anyHeader matches any table or array-of-tables header.
var anyHeader = regexp.MustCompile(`^\s*\[`)

// ourKey matches a command or args key line of holomem's table.
var ourKey = regexp.MustCompile(`^\s*(?:command|args|"command"|"args")\s*=`)

// setTOMLServer sets [mcp_servers.holomem] command and args in a Codex
// config.toml. It edits the text, not a re-encoding of the file, so that
// comments, ordering and every other table stay as written: the table's
// command and args lines are replaced (its other keys, such as env or
// startup_timeout_sec, stay), or the table is appended. The result is
// parsed again and must equal the original but for those two keys.
func setTOMLServer(old []byte, command string, args []string) ([]byte, error) {
	var before map[string]any
	if _, err := toml.Decode(string(old), &before); err != nil {
		return nil, fmt.Errorf("not valid TOML: %w", err)
	}
	if before == nil {
		before = map[string]any{}
	}
	want := serverTable(before)
	if want != nil && want["command"] == command && slices.Equal(stringList(want["args"]), args) {
		return old, nil
	}
	lines := []string{"command = " + string(jsonString(command)), "args = " + tomlArray(args)}
	text := strings.Split(string(old), "\n")
	start := slices.IndexFunc(text, tableHeader.MatchString)
	var out []string
	switch {
	case start >= 0:
		end := len(text)
		for i := start + 1; i < len(text); i++ {
			if anyHeader.MatchString(text[i]) {
				end = i
				break
			}
		}
		out = append(out, text[:start+1]...)
		out = append(out, lines...)
		for i := start + 1; i < end; i++ {
			if ourKey.MatchString(text[i]) {
				i = skipValue(text, i)
				continue
			}
			out = append(out, text[i])
		}
		out = append(out, text[end:]...)
	case want != nil:
		return nil, errors.New("mcp_servers.holomem is defined in a form (inline table or dotted keys) that holomem does not edit: change its command and args by hand")
	default:
		body := strings.TrimRight(string(old), "\n")
		if body != "" {
			body += "\n\n"
		}
		out = strings.Split(body+"[mcp_servers."+ServerName+"]\n"+strings.Join(lines, "\n")+"\n", "\n")
	}
	nw := []byte(strings.Join(out, "\n"))
	// The check that the text edit did what it should, and only that.
	var after map[string]any
	if _, err := toml.Decode(string(nw), &after); err != nil {
		return nil, fmt.Errorf("the edited file would not be valid TOML (%v): add [mcp_servers.holomem] by hand", err)
	}
	expect := deepCopy(before)
	servers, _ := expect["mcp_servers"].(map[string]any)
	if servers == nil {
		servers = map[string]any{}
		expect["mcp_servers"] = servers
	}
	t, _ := servers[ServerName].(map[string]any)
	if t == nil {
		t = map[string]any{}
		servers[ServerName] = t
	}
	t["command"] = command
	t["args"] = anyList(args)
	if !reflect.DeepEqual(expect, after) {
		return nil, errors.New("the edit would change more than [mcp_servers.holomem] command and args: add them by hand")
	}
	return nw, nil
}

// serverTable returns mcp_servers.holomem of a decoded config, or nil.
func serverTable(cfg map[string]any) map[string]any {
	servers, _ := cfg["mcp_servers"].(map[string]any)
	t, _ := servers[ServerName].(map[string]any)
	return t
}

// skipValue returns the last line of the key-value pair starting at line
// i: a multi-line array runs until its brackets close.
func skipValue(text []string, i int) int {
	depth := 0
	for j := i; j < len(text); j++ {
		depth += bracketDepth(text[j])
		if depth <= 0 {
			return j
		}
	}
	return len(text) - 1
}

// bracketDepth is the change in array nesting over one line, outside
// strings and comments.
func bracketDepth(line string) int {
	d := 0
	var quote byte
	for i := 0; i < len(line); i++ {
		c := line[i]
		switch {
		case quote != 0:
			if c == '\\' && quote == '"' {
				i++
			} else if c == quote {
				quote = 0
			}
		case c == '"' || c == '\'':
			quote = c
		case c == '#':
			return d
		case c == '[':
			d++
		case c == ']':
			d--
		}
	}
	return d
}

// tomlArray writes a TOML array of basic strings (JSON string escapes are
// valid TOML ones).
func tomlArray(xs []string) string {
	parts := make([]string, len(xs))
	for i, x := range xs {
		parts[i] = string(jsonString(x))
	}
	return "[" + strings.Join(parts, ", ") + "]"
}

func stringList(v any) []string {
	xs, ok := v.([]any)
	if !ok {
		return nil
	}
	out := make([]string, 0, len(xs))
	for _, x := range xs {
		s, ok := x.(string)
		if !ok {
			return nil
		}
		out = append(out, s)
	}
	return out
}

func anyList(xs []string) []any {
	out := make([]any, len(xs))
	for i, x := range xs {
		out[i] = x
	}
	return out
}

// deepCopy copies the maps of a decoded TOML document (other values are
// not changed by the caller and are shared).
func deepCopy(m map[string]any) map[string]any {
	out := make(map[string]any, len(m))
	for k, v := range m {
		if c, ok := v.(map[string]any); ok {
			v = deepCopy(c)
		}
		out[k] = v
	}
	return out
}
