package mcpserver_test

import (
	"context"
	"fmt"
	"os"
	"path/filepath"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/holomem/holomem/mcpserver"
	"github.com/holomem/holomem/retrieve"
	"github.com/holomem/holomem/sqlite"
)

// ExampleNew wires a store and a memory into an MCP server and calls a
// tool through the SDK's client over in-memory pipes. `holomem mcp` calls
// ServeStdio instead; `holomem serve` mounts Handler at /mcp.
func ExampleNew() {
	ctx := context.Background()
	dir, _ := os.MkdirTemp("", "holomem-example")
	defer os.RemoveAll(dir)
	store, err := sqlite.Open(ctx, filepath.Join(dir, "memory.db"))
	if err != nil {
		fmt.Println(err)
		return
	}
	defer store.Close()
	mem, err := retrieve.New(store, retrieve.Options{})
	if err != nil {
		fmt.Println(err)
		return
	}
	defer mem.Close()

	srv := mcpserver.New(mem, store, mcpserver.Options{Namespace: "demo", Version: "v0.1.0"})

	clientT, serverT := mcp.NewInMemoryTransports()
	ss, _ := srv.MCP().Connect(ctx, serverT, nil)
	defer ss.Close()
	cs, _ := mcp.NewClient(&mcp.Implementation{Name: "agent"}, nil).Connect(ctx, clientT, nil)
	defer cs.Close()

	res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "remember", Arguments: map[string]any{"content": "Alice prefers tea"}})
	if err != nil {
		fmt.Println(err)
		return
	}
	out := res.StructuredContent.(map[string]any)
	fmt.Println("created:", out["created"], "snippet:", out["fact"].(map[string]any)["snippet"])

	res, _ = cs.CallTool(ctx, &mcp.CallToolParams{Name: "recall", Arguments: map[string]any{"query": "what does Alice drink"}})
	hit := res.StructuredContent.(map[string]any)["hits"].([]any)[0].(map[string]any)
	fmt.Println("hit:", hit["id"], hit["snippet"])

	res, _ = cs.CallTool(ctx, &mcp.CallToolParams{Name: "get", Arguments: map[string]any{"id": 12345}})
	fmt.Println("error:", res.IsError, res.Content[0].(*mcp.TextContent).Text[:10])
	// Output:
	// created: true snippet: Alice prefers tea
	// hit: 1 Alice prefers tea
	// error: true not_found:
}
