package mcpserver_test

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/holomem/holomem"
	"github.com/holomem/holomem/internal/testkit/testutil"
	"github.com/holomem/holomem/mcpserver"
	"github.com/holomem/holomem/retrieve"
)

// TestTools_namespaceChecked: every tool takes a namespace argument, which
// the server's grant is checked against before the tool runs (one check
// for all tools), so a tool added later is checked too.
func TestTools_namespaceChecked(t *testing.T) {
	mem, st := testutil.MustOpenMemory(t, retrieve.Options{})
	g := &holomem.Grant{Namespaces: []string{"mine"}}
	cs := connectInMemory(t, mcpserver.New(mem, st, mcpserver.Options{Namespace: "mine", Grant: g}))
	tools, err := cs.ListTools(t.Context(), nil)
	if err != nil {
		t.Fatal(err)
	}
	for _, tool := range tools.Tools {
		b, _ := json.Marshal(tool.InputSchema)
		var schema struct {
			Properties map[string]struct {
				Type any `json:"type"`
			} `json:"properties"`
			Required []string `json:"required"`
		}
		if err := json.Unmarshal(b, &schema); err != nil {
			t.Fatal(err)
		}
		if _, has := schema.Properties["namespace"]; !has {
			t.Errorf("tool %s has no namespace argument: %s", tool.Name, b)
		}
		// Read-only grant: a tool that changes facts is refused in the
		// grant's own namespace, a read-only one elsewhere.
		ns := "other"
		if tool.Annotations == nil || !tool.Annotations.ReadOnlyHint {
			ns = "mine"
		}
		args := map[string]any{"namespace": ns}
		for _, name := range schema.Required {
			typ := schema.Properties[name].Type
			if list, ok := typ.([]any); ok {
				typ = list[len(list)-1]
			}
			switch typ {
			case "integer", "number":
				args[name] = 1
			case "array":
				args[name] = []string{"x"}
			case "boolean":
				args[name] = true
			default:
				args[name] = "x"
			}
		}
		res, err := cs.CallTool(t.Context(), &mcp.CallToolParams{Name: tool.Name, Arguments: args})
		out, _ := json.Marshal(res)
		if err != nil || !res.IsError || !json.Valid(out) || !strings.Contains(string(out), "forbidden") {
			t.Errorf("%s in namespace %q with a read-only grant of %v: %s %v, want forbidden", tool.Name, ns, g.Namespaces, out, err)
		}
	}
}
