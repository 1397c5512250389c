package mcpserver_test

import (
	"fmt"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/holomem/holomem/mcpserver"
)

var sinkResult *mcp.CallToolResult

// BenchmarkMCPRoundTrip measures one tool call through the SDK client and
// server (JSON-RPC encoding, schema validation, the memory call) on 500
// facts, over in-memory pipes and over a real stdio pipe to a child process.
func BenchmarkMCPRoundTrip(b *testing.B) {
	transports := map[string]func(b *testing.B) *mcp.ClientSession{
		"inmemory": func(b *testing.B) *mcp.ClientSession {
			return connectInMemory(b, newServer(b, mcpserver.Options{}))
		},
		"stdio": func(b *testing.B) *mcp.ClientSession {
			cmd := childCommand(b)
			cs, err := mcp.NewClient(&mcp.Implementation{Name: "bench", Version: "1"}, nil).
				Connect(b.Context(), &mcp.CommandTransport{Command: cmd}, nil)
			if err != nil {
				b.Fatal(err)
			}
			b.Cleanup(func() { cs.Close() })
			return cs
		},
	}
	for _, tr := range []string{"inmemory", "stdio"} {
		b.Run(tr, func(b *testing.B) {
			cs := transports[tr](b)
			var first int64
			for i := range 500 {
				r := call[mcpserver.RememberOutput](b, cs, "remember", map[string]any{
					"content": fmt.Sprintf("Fact %d: service%d talks to database%d over port %d", i, i%17, i%5, 8000+i),
				})
				if i == 0 {
					first = r.ID
				}
			}
			// get is one indexed read: what remains is the transport's cost.
			b.Run("get", func(b *testing.B) {
				args := map[string]any{"id": first}
				b.ReportAllocs()
				for b.Loop() {
					res, err := cs.CallTool(b.Context(), &mcp.CallToolParams{Name: "get", Arguments: args})
					if err != nil || res.IsError {
						b.Fatal(err, text(res))
					}
					sinkResult = res
				}
			})
			b.Run("recall", func(b *testing.B) {
				args := map[string]any{"query": "which service talks to database3", "limit": 10}
				b.ReportAllocs()
				for b.Loop() {
					res, err := cs.CallTool(b.Context(), &mcp.CallToolParams{Name: "recall", Arguments: args})
					if err != nil || res.IsError {
						b.Fatal(err, text(res))
					}
					sinkResult = res
				}
			})
			b.Run("remember", func(b *testing.B) {
				b.ReportAllocs()
				i := 0
				for b.Loop() {
					i++
					args := map[string]any{"content": fmt.Sprintf("Benchmark note %d from %s about port %d", i, tr, 9000+i)}
					res, err := cs.CallTool(b.Context(), &mcp.CallToolParams{Name: "remember", Arguments: args})
					if err != nil || res.IsError {
						b.Fatal(err, text(res))
					}
					sinkResult = res
				}
			})
		})
	}
}
