package main

import (
	"os"
	"os/exec"
	"strings"
	"testing"
)

// TestBenchLoad_Tiny runs a tiny `holomem bench load` against the built
// binary: a real serve and real MCP agent processes on one SQLite file,
// with 0 errors, 0 locked, every acknowledged fact present.
func TestBenchLoad_Tiny(t *testing.T) {
	if testing.Short() {
		t.Skip("builds the binary and starts processes")
	}
	bin := buildBinary(t)
	cmd := exec.Command(bin, "bench", "load", "--agents", "2", "--ops", "40", "--conns", "4", "--duration", "1s", "--facts", "100")
	cmd.Env = append(os.Environ(), "HOLOMEM_MODEL_DIR="+t.TempDir(), "HOLOMEM_TOKEN=", "HOLOMEM_NAMESPACE=")
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("bench load: %v\n%s", err, out)
	}
	for _, want := range []string{"mcp remember", "mcp recall", "http recall", "http add",
		"errors: 0   locked/busy surfaced: 0", "missing afterwards: 0"} {
		if !strings.Contains(string(out), want) {
			t.Errorf("output lacks %q:\n%s", want, out)
		}
	}
}
