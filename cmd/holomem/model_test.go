package main

import (
	"crypto/sha1"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"io/fs"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/holomem/holomem/internal/testkit/testutil"
)

// localHub serves the files of dir the way the model hub does (revision,
// tree and resolve endpoints) for repo "acme/tiny" at one commit.
func localHub(t *testing.T, dir string) *httptest.Server {
	t.Helper()
	const commit = "0123456789abcdef0123456789abcdef01234567"
	files := map[string][]byte{}
	filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		b, err := os.ReadFile(p)
		rel, _ := filepath.Rel(dir, p)
		files[filepath.ToSlash(rel)] = b
		return err
	})
	mux := http.NewServeMux()
	mux.HandleFunc("GET /api/models/acme/tiny/revision/{rev}", func(w http.ResponseWriter, r *http.Request) {
		var sib []map[string]string
		for p := range files {
			sib = append(sib, map[string]string{"rfilename": p})
		}
		json.NewEncoder(w).Encode(map[string]any{"id": "acme/tiny", "sha": commit, "siblings": sib})
	})
	mux.HandleFunc("GET /api/models/acme/tiny/tree/{rev}", func(w http.ResponseWriter, r *http.Request) {
		var entries []map[string]any
		for p, b := range files {
			e := map[string]any{"type": "file", "path": p, "size": len(b)}
			if strings.HasSuffix(p, ".safetensors") {
				sum := sha256.Sum256(b)
				e["oid"] = "lfs-pointer"
				e["lfs"] = map[string]any{"oid": hex.EncodeToString(sum[:]), "size": len(b)}
			} else {
				g := sha1.New()
				fmt.Fprintf(g, "blob %d\x00", len(b))
				g.Write(b)
				e["oid"] = hex.EncodeToString(g.Sum(nil))
			}
			entries = append(entries, e)
		}
		json.NewEncoder(w).Encode(entries)
	})
	mux.HandleFunc("GET /acme/tiny/resolve/{rev}/{path...}", func(w http.ResponseWriter, r *http.Request) {
		b, ok := files[r.PathValue("path")]
		if !ok {
			http.NotFound(w, r)
			return
		}
		http.ServeContent(w, r, r.PathValue("path"), time.Time{}, strings.NewReader(string(b)))
	})
	srv := httptest.NewServer(mux)
	t.Cleanup(srv.Close)
	return srv
}

func TestCLI_ModelPullAndSemanticRecall(t *testing.T) {
	src := t.TempDir()
	testutil.WriteTinyModel(t, src)
	srv := localHub(t, src)
	c := newCLI(t)
	models := t.TempDir()

	// Before the pull: doctor says how to get a model, recall still works.
	c.ok("add", "We deploy nginx with Ansible")
	var doc struct {
		ModelStatus string   `json:"model_status"`
		Channels    []string `json:"channels"`
	}
	c.json(&doc, "--model-dir", models, "--model", "acme/tiny", "doctor")
	if !strings.Contains(doc.ModelStatus, "holomem model pull acme/tiny") || strings.Contains(strings.Join(doc.Channels, ","), "semantic") {
		t.Errorf("doctor without a model = %+v", doc)
	}

	out := c.ok("--model-dir", models, "model", "pull", "acme/tiny", "--base-url", srv.URL)
	if !strings.Contains(out, "acme/tiny") {
		t.Errorf("pull: %s", out)
	}
	// A second pull transfers nothing new and succeeds.
	c.ok("--model-dir", models, "model", "pull", "acme/tiny", "--base-url", srv.URL)
	if out := c.ok("--model-dir", models, "model", "list"); !strings.Contains(out, "acme/tiny") {
		t.Errorf("list: %s", out)
	}

	// Backfill embeds the fact stored before the model arrived.
	if out := c.ok("--model-dir", models, "--model", "acme/tiny", "backfill"); !strings.Contains(out, "backfilled") {
		t.Errorf("backfill: %s", out)
	}
	c.json(&doc, "--model-dir", models, "--model", "acme/tiny", "doctor")
	if !strings.Contains(strings.Join(doc.Channels, ","), "semantic") {
		t.Errorf("doctor with a model: channels %v", doc.Channels)
	}
	var res struct {
		Channels []string `json:"channels"`
		Hits     []struct {
			Scores map[string]float64 `json:"scores"`
		} `json:"hits"`
	}
	c.json(&res, "--model-dir", models, "--model", "acme/tiny", "recall", "nginx")
	if strings.Join(res.Channels, ",") != "fts,jaccard,hrr,semantic" || len(res.Hits) == 0 || res.Hits[0].Scores["semantic"] == 0 {
		t.Errorf("recall with the model = %+v", res)
	}

	// Graph build over the stored vectors, then doctor reports the index.
	for i := range 20 {
		c.ok("--model-dir", models, "--model", "acme/tiny", "add", fmt.Sprintf("service %d listens on port %d", i, 8000+i))
	}
	var g struct {
		Namespaces []struct {
			Vectors int `json:"vectors"`
			Edges   int `json:"edges"`
		} `json:"namespaces"`
	}
	c.json(&g, "--model-dir", models, "--model", "acme/tiny", "graph", "build")
	if len(g.Namespaces) != 1 || g.Namespaces[0].Vectors != 21 || g.Namespaces[0].Edges == 0 {
		t.Errorf("graph build = %+v", g)
	}
	var doc2 struct {
		Extra map[string]json.RawMessage `json:"extra"`
	}
	c.json(&doc2, "--model-dir", models, "--model", "acme/tiny", "doctor")
	var idx []struct {
		Vectors int    `json:"vectors"`
		Nodes   int    `json:"nodes"`
		Mode    string `json:"mode"`
	}
	json.Unmarshal(doc2.Extra["vector_index"], &idx)
	if len(idx) != 1 || idx[0].Vectors != 21 || idx[0].Nodes != 21 {
		t.Errorf("doctor vector index = %s", doc2.Extra["vector_index"])
	}
	// The index's similar_to edges are not exported.
	if out := c.ok("export"); strings.Contains(out, `"similar_to"`) || strings.Contains(out, `"origin":"hnsw"`) {
		t.Errorf("export carries HNSW edges:\n%s", out)
	}
}
