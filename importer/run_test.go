package importer_test

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/holomem/holomem"
	"github.com/holomem/holomem/importer"
	"github.com/holomem/holomem/internal/testkit/testutil"
	"github.com/holomem/holomem/retrieve"
)

// writeIssues writes n GitHub issues and PRs (odd numbers are PRs fixing
// the issue before them) as `gh ... --json` prints them.
func writeIssues(t *testing.T, n int) string {
	t.Helper()
	var items []map[string]any
	for i := 1; i <= n; i++ {
		it := map[string]any{"number": i, "title": fmt.Sprintf("issue %d about the deploy pipeline step %d", i, i), "body": "details",
			"state": "OPEN", "url": fmt.Sprintf("https://github.com/acme/app/issues/%d", i), "createdAt": "2026-01-02T10:00:00Z"}
		if i%2 == 0 {
			it["url"] = fmt.Sprintf("https://github.com/acme/app/pull/%d", i)
			it["body"] = fmt.Sprintf("Fixes #%d.", i-1)
		}
		items = append(items, it)
	}
	b, err := json.Marshal(items)
	if err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(t.TempDir(), "gh.json")
	if err := os.WriteFile(path, b, 0o600); err != nil {
		t.Fatal(err)
	}
	return path
}

func TestRun(t *testing.T) {
	ctx := t.Context()
	m, s := testutil.MustOpenMemory(t, retrieve.Options{})
	path := writeIssues(t, 40)
	o := importer.Options{Kind: "github", Path: path, Namespace: "acme"}
	rep, err := importer.Run(ctx, m, s, o)
	if err != nil {
		t.Fatal(err)
	}
	if rep.Records != 40 || rep.Created != 40 || rep.Edges != 20 || rep.Unresolved != 0 {
		t.Errorf("first import = %+v", rep)
	}
	es, err := s.FindEdges(ctx, holomem.EdgeFilter{Namespace: "acme", Kinds: []holomem.EdgeKind{holomem.EdgeCausal}})
	if err != nil || len(es) != 20 || !strings.HasPrefix(es[0].Origin, holomem.OriginImport+":") {
		t.Fatalf("edges = %d (%v), first %+v", len(es), err, es[0])
	}
	rep, err = importer.Run(ctx, m, s, o)
	if err != nil || rep.Created != 0 || rep.Existing != 40 || rep.Edges != 0 {
		t.Errorf("second import = %+v, %v (want everything already there)", rep, err)
	}

	t.Run("ExportRoundTrip", func(t *testing.T) {
		var buf bytes.Buffer
		xr, err := importer.Export(ctx, s, &buf, "acme")
		if err != nil || xr.Facts != 40 || xr.Edges != 20 {
			t.Fatalf("export = %+v, %v", xr, err)
		}
		m2, s2 := testutil.MustOpenMemory(t, retrieve.Options{})
		rep, err := importer.Run(ctx, m2, s2, importer.Options{Kind: "jsonl", Path: "-", Stdin: &buf, Namespace: "ignored"})
		if err != nil || rep.Created != 40 || rep.Edges != 20 {
			t.Fatalf("re-import = %+v, %v", rep, err)
		}
		if st, err := s2.Stats(ctx, ""); err != nil || st.Namespaces["acme"] != 40 {
			t.Errorf("namespaces after re-import = %v, %v", st.Namespaces, err)
		}
	})
	t.Run("ErrUnknownKind", func(t *testing.T) {
		if _, err := importer.Run(ctx, m, s, importer.Options{Kind: "csv", Path: path}); !errors.Is(err, importer.ErrUnknownKind) {
			t.Errorf("Run(csv) = %v", err)
		}
	})
	t.Run("ErrInvalidPath", func(t *testing.T) {
		if _, err := importer.Run(ctx, m, s, importer.Options{Kind: "github", Path: filepath.Join(t.TempDir(), "missing.json")}); !errors.Is(err, holomem.ErrInvalid) {
			t.Errorf("Run(missing file) = %v", err)
		}
	})
}

// TestRun_Cancel: a cancelled context (Ctrl-C) stops an import between
// batches; what was stored stays, and running the import again finishes it.
func TestRun_Cancel(t *testing.T) {
	m, s := testutil.MustOpenMemory(t, retrieve.Options{})
	n := importer.Batch*2 + 10
	path := writeIssues(t, n)
	ctx, cancel := context.WithCancel(t.Context())
	defer cancel()
	o := importer.Options{Kind: "github", Path: path, Namespace: "acme", Progress: func(string, int, int) { cancel() }}
	if _, err := importer.Run(ctx, m, s, o); !errors.Is(err, context.Canceled) {
		t.Fatalf("cancelled import = %v, want context.Canceled", err)
	}
	st, err := s.Stats(t.Context(), "acme")
	if err != nil || st.Facts != importer.Batch {
		t.Fatalf("after cancel: %d facts (%v), want the first batch of %d", st.Facts, err, importer.Batch)
	}
	o.Progress = nil
	rep, err := importer.Run(t.Context(), m, s, o)
	if err != nil || rep.Created != n-importer.Batch || rep.Existing != importer.Batch {
		t.Errorf("resumed import = %+v, %v", rep, err)
	}
}
