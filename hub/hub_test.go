package hub_test

import (
	"bytes"
	"context"
	"crypto/sha1"
	"crypto/sha256"
	"encoding/binary"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"math/rand/v2"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/holomem/holomem"
	"github.com/holomem/holomem/hub"
)

const (
	testRepo   = "acme/tiny-model"
	testCommit = "0123456789abcdef0123456789abcdef01234567"
)

// fakeHub serves a generated tiny model through the hub's HTTP API: the
// revision and tree endpoints (tree paginated two entries a page), resolve
// (LFS files redirect to /cdn/ like the real hub), Range requests, and
// injectable faults.
type fakeHub struct {
	cdnURL string // another host name, as the real CDN is
	files  map[string][]byte
	lfs    map[string]bool

	mu struct {
		sync.Mutex
		drops       map[string]int // path -> transfers to cut halfway
		stalls      map[string]int // path -> transfers to hang halfway
		hangAPI     int            // revision requests to leave unanswered
		ignoreRange bool
		corrupt     map[string]bool
		noTree      bool
		token       string   // required bearer token, "" for none
		downloads   []string // "path range" of each file transfer
	}
}

// testWeights are the fake model.safetensors: 3 MiB and a bit of seeded
// random bytes (generated once; every hub gets its own copy).
var testWeights = sync.OnceValue(func() []byte {
	rng := rand.New(rand.NewPCG(1, 2))
	w := make([]byte, 0, 3<<20+12352)
	for len(w) < cap(w) {
		w = binary.LittleEndian.AppendUint64(w, rng.Uint64())
	}
	return w[:3<<20+12345]
})

func newFakeHub(t *testing.T) (*fakeHub, *httptest.Server) {
	t.Helper()
	weights := slices.Clone(testWeights())
	h := &fakeHub{
		files: map[string][]byte{
			"config.json":               []byte(`{"model_type":"bert","hidden_size":8}`),
			"tokenizer.json":            []byte(`{"model":{"type":"Unigram"}}`),
			"tokenizer_config.json":     []byte(`{}`),
			"special_tokens_map.json":   []byte(`{"unk_token":"<unk>"}`),
			"modules.json":              []byte(`[]`),
			"sentence_bert_config.json": []byte(`{"max_seq_length":128}`),
			"1_Pooling/config.json":     []byte(`{"pooling_mode_mean_tokens":true}`),
			"model.safetensors":         weights,
			"pytorch_model.bin":         []byte("not wanted"),
			"onnx/model.onnx":           []byte("not wanted"),
			"README.md":                 []byte("# tiny"),
		},
		lfs: map[string]bool{"model.safetensors": true, "pytorch_model.bin": true, "onnx/model.onnx": true},
	}
	h.mu.drops = map[string]int{}
	h.mu.stalls = map[string]int{}
	h.mu.corrupt = map[string]bool{}
	api := http.NewServeMux()
	api.HandleFunc("GET /api/models/{owner}/{name}/revision/{rev}", h.revision)
	api.HandleFunc("GET /api/models/{owner}/{name}/tree/{rev}", h.tree)
	files := http.NewServeMux()
	files.HandleFunc("GET /{owner}/{name}/resolve/{rev}/{path...}", h.resolve)
	cdn := http.NewServeMux()
	cdn.HandleFunc("GET /cdn/{path...}", h.cdn)
	cdnSrv := httptest.NewServer(cdn)
	t.Cleanup(cdnSrv.Close)
	h.cdnURL = strings.Replace(cdnSrv.URL, "127.0.0.1", "localhost", 1)
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if strings.HasPrefix(r.URL.Path, "/api/") {
			api.ServeHTTP(w, r)
			return
		}
		files.ServeHTTP(w, r)
	}))
	t.Cleanup(srv.Close)
	return h, srv
}

func (h *fakeHub) paths() []string {
	var ps []string
	for p := range h.files {
		ps = append(ps, p)
	}
	slices.Sort(ps)
	return ps
}

// authorized enforces the token like the hub: a missing repo and a refused
// one both answer 401 with an error code.
func (h *fakeHub) authorized(w http.ResponseWriter, r *http.Request) bool {
	h.mu.Lock()
	token := h.mu.token
	h.mu.Unlock()
	if token != "" && r.Header.Get("Authorization") != "Bearer "+token {
		w.Header().Set("X-Error-Code", "GatedRepo")
		http.Error(w, "gated", http.StatusUnauthorized)
		return false
	}
	if r.PathValue("owner")+"/"+r.PathValue("name") != testRepo {
		w.Header().Set("X-Error-Code", "RepoNotFound")
		http.Error(w, "Repository not found", http.StatusUnauthorized)
		return false
	}
	return true
}

func (h *fakeHub) revision(w http.ResponseWriter, r *http.Request) {
	h.mu.Lock()
	hang := h.mu.hangAPI > 0
	if hang {
		h.mu.hangAPI--
	}
	h.mu.Unlock()
	if hang {
		<-r.Context().Done()
		return
	}
	if !h.authorized(w, r) {
		return
	}
	if rev := r.PathValue("rev"); rev != "main" && rev != testCommit {
		w.Header().Set("X-Error-Code", "RevisionNotFound")
		http.Error(w, "Invalid rev id", http.StatusNotFound)
		return
	}
	type sibling struct {
		RFilename string `json:"rfilename"`
	}
	var sib []sibling
	for _, p := range h.paths() {
		sib = append(sib, sibling{p})
	}
	json.NewEncoder(w).Encode(map[string]any{"id": testRepo, "sha": testCommit, "siblings": sib})
}

func (h *fakeHub) tree(w http.ResponseWriter, r *http.Request) {
	h.mu.Lock()
	noTree := h.mu.noTree
	h.mu.Unlock()
	if noTree {
		http.NotFound(w, r)
		return
	}
	if !h.authorized(w, r) {
		return
	}
	if r.PathValue("rev") != testCommit || r.URL.Query().Get("recursive") != "true" {
		http.Error(w, "want the pinned commit, recursively", http.StatusBadRequest)
		return
	}
	type lfs struct {
		OID  string `json:"oid"`
		Size int64  `json:"size"`
	}
	type entry struct {
		Type string `json:"type"`
		OID  string `json:"oid"`
		Size int64  `json:"size"`
		Path string `json:"path"`
		LFS  *lfs   `json:"lfs,omitempty"`
	}
	entries := []entry{{Type: "directory", OID: "d", Path: "1_Pooling"}, {Type: "directory", OID: "o", Path: "onnx"}}
	for _, p := range h.paths() {
		c := h.files[p]
		if h.lfs[p] {
			sum := sha256.Sum256(c)
			entries = append(entries, entry{Type: "file", OID: "pointer-oid", Size: int64(len(c)), Path: p,
				LFS: &lfs{OID: hex.EncodeToString(sum[:]), Size: int64(len(c))}})
			continue
		}
		g := sha1.New()
		fmt.Fprintf(g, "blob %d\x00", len(c))
		g.Write(c)
		entries = append(entries, entry{Type: "file", OID: hex.EncodeToString(g.Sum(nil)), Size: int64(len(c)), Path: p})
	}
	const pageSize = 2
	start, _ := strconv.Atoi(r.URL.Query().Get("cursor"))
	end := min(start+pageSize, len(entries))
	if end < len(entries) {
		w.Header().Set("Link", fmt.Sprintf(`<%s?recursive=true&cursor=%d>; rel="next"`, r.URL.Path, end))
	}
	json.NewEncoder(w).Encode(entries[start:end])
}

func (h *fakeHub) resolve(w http.ResponseWriter, r *http.Request) {
	if !h.authorized(w, r) {
		return
	}
	p := r.PathValue("path")
	if r.PathValue("rev") != testCommit {
		http.Error(w, "want the pinned commit", http.StatusBadRequest)
		return
	}
	if h.lfs[p] {
		http.Redirect(w, r, h.cdnURL+"/cdn/"+p, http.StatusFound)
		return
	}
	h.serve(w, r, p)
}

// cdn serves LFS content from another host name; like a real CDN it needs
// no token, and must never see one.
func (h *fakeHub) cdn(w http.ResponseWriter, r *http.Request) {
	if r.Header.Get("Authorization") != "" {
		http.Error(w, "the token leaked to the CDN", http.StatusBadRequest)
		return
	}
	h.serve(w, r, r.PathValue("path"))
}

func (h *fakeHub) serve(w http.ResponseWriter, r *http.Request, p string) {
	content, ok := h.files[p]
	if !ok {
		w.Header().Set("X-Error-Code", "EntryNotFound")
		http.NotFound(w, r)
		return
	}
	h.mu.Lock()
	h.mu.downloads = append(h.mu.downloads, p+" "+r.Header.Get("Range"))
	drop := h.mu.drops[p] > 0
	if drop {
		h.mu.drops[p]--
	}
	stall := h.mu.stalls[p] > 0
	if stall {
		h.mu.stalls[p]--
		drop = true
	}
	ignore, corrupt := h.mu.ignoreRange, h.mu.corrupt[p]
	h.mu.Unlock()

	if corrupt {
		content = slices.Clone(content)
		content[len(content)/2] ^= 0xff
	}
	if ignore || drop {
		start := int64(0)
		if rg := r.Header.Get("Range"); rg != "" && !ignore {
			start, _ = strconv.ParseInt(strings.TrimSuffix(strings.TrimPrefix(rg, "bytes="), "-"), 10, 64)
			w.Header().Set("Content-Range", fmt.Sprintf("bytes %d-%d/%d", start, len(content)-1, len(content)))
			w.Header().Set("Content-Length", strconv.Itoa(len(content)-int(start)))
			w.WriteHeader(http.StatusPartialContent)
		} else {
			w.Header().Set("Content-Length", strconv.Itoa(len(content)))
			w.WriteHeader(http.StatusOK)
		}
		rest := content[start:]
		if !drop {
			w.Write(rest)
			return
		}
		w.Write(rest[:len(rest)/2])
		w.(http.Flusher).Flush()
		if stall {
			<-r.Context().Done() // hang until the client gives up
		}
		panic(http.ErrAbortHandler) // cut the connection mid-body
	}
	http.ServeContent(w, r, p, time.Time{}, bytes.NewReader(content))
}

func (h *fakeHub) downloads() []string {
	h.mu.Lock()
	defer h.mu.Unlock()
	return slices.Clone(h.mu.downloads)
}

func (h *fakeHub) resetDownloads() {
	h.mu.Lock()
	h.mu.downloads = nil
	h.mu.Unlock()
}

func testClient(srv *httptest.Server) *hub.Client {
	return &hub.Client{BaseURL: srv.URL, HTTP: srv.Client(), RetryWait: time.Millisecond}
}

var wantFiles = []string{
	"1_Pooling/config.json", "config.json", "model.safetensors", "modules.json",
	"sentence_bert_config.json", "special_tokens_map.json", "tokenizer.json", "tokenizer_config.json",
}

// checkInstalled verifies the model directory holds exactly the wanted
// files with the served content, and no partial files.
func checkInstalled(t *testing.T, h *fakeHub, modelDir string) {
	t.Helper()
	var got []string
	filepath.WalkDir(modelDir, func(path string, d os.DirEntry, err error) error {
		if err == nil && !d.IsDir() {
			rel, _ := filepath.Rel(modelDir, path)
			got = append(got, filepath.ToSlash(rel))
		}
		return nil
	})
	want := append(slices.Clone(wantFiles), hub.ManifestFile)
	slices.Sort(want)
	if !slices.Equal(got, want) {
		t.Fatalf("model dir holds %v, want %v", got, want)
	}
	for _, p := range wantFiles {
		data, err := os.ReadFile(filepath.Join(modelDir, filepath.FromSlash(p)))
		if err != nil || !bytes.Equal(data, h.files[p]) {
			t.Errorf("%s: content differs from the hub's (err %v)", p, err)
		}
	}
}

func TestClient_Pull(t *testing.T) {
	t.Run("OK", func(t *testing.T) {
		h, srv := newFakeHub(t)
		dir := t.TempDir()
		c := testClient(srv)
		var mu sync.Mutex
		last := map[string][2]int64{}
		c.Progress = func(file string, done, total int64) {
			mu.Lock()
			last[file] = [2]int64{done, total}
			mu.Unlock()
		}
		m, err := c.Pull(t.Context(), testRepo, "", dir)
		if err != nil {
			t.Fatal(err)
		}
		modelDir := filepath.Join(dir, "acme__tiny-model")
		if m.Dir != modelDir || m.Repo != testRepo || m.Revision != "main" || m.Commit != testCommit || m.PulledAt.IsZero() {
			t.Errorf("manifest = %+v", m)
		}
		checkInstalled(t, h, modelDir)
		for _, f := range m.Files {
			sum := sha256.Sum256(h.files[f.Path])
			if f.SHA256 != hex.EncodeToString(sum[:]) || f.Size != int64(len(h.files[f.Path])) || f.LFS != h.lfs[f.Path] {
				t.Errorf("manifest entry %+v does not describe the file", f)
			}
		}
		if got, want := m.Files[len(m.Files)-1].Path, "model.safetensors"; got != want {
			t.Errorf("last file %s, want %s (weights last)", got, want)
		}
		size := int64(len(h.files["model.safetensors"]))
		if got := last["model.safetensors"]; got != [2]int64{size, size} {
			t.Errorf("last progress for the weights = %v, want %d of %d", got, size, size)
		}

		stored, err := hub.List(dir)
		if err != nil || len(stored) != 1 {
			t.Fatalf("List = %v, %v", stored, err)
		}
		if got := stored[0]; got.Repo != m.Repo || got.Commit != m.Commit || len(got.Files) != len(m.Files) || !got.PulledAt.Equal(m.PulledAt) {
			t.Errorf("List()[0] = %+v, want %+v", got, *m)
		}
	})

	t.Run("Idempotent", func(t *testing.T) {
		h, srv := newFakeHub(t)
		dir := t.TempDir()
		c := testClient(srv)
		if _, err := c.Pull(t.Context(), testRepo, "main", dir); err != nil {
			t.Fatal(err)
		}
		h.resetDownloads()
		if _, err := c.Pull(t.Context(), testRepo, "main", dir); err != nil {
			t.Fatal(err)
		}
		if got := h.downloads(); len(got) != 0 {
			t.Errorf("second pull downloaded %v, want nothing", got)
		}
		// Without the manifest, files are verified by hashing: still nothing to fetch.
		os.Remove(filepath.Join(dir, "acme__tiny-model", hub.ManifestFile))
		if _, err := c.Pull(t.Context(), testRepo, "main", dir); err != nil {
			t.Fatal(err)
		}
		if got := h.downloads(); len(got) != 0 {
			t.Errorf("pull after losing the manifest downloaded %v, want nothing", got)
		}
		// A damaged file is fetched again.
		os.WriteFile(filepath.Join(dir, "acme__tiny-model", "config.json"), []byte(`{"model_type":"XXXX","hidden_size":8}`), 0o644)
		os.Remove(filepath.Join(dir, "acme__tiny-model", hub.ManifestFile))
		if _, err := c.Pull(t.Context(), testRepo, "main", dir); err != nil {
			t.Fatal(err)
		}
		if got := h.downloads(); !slices.Equal(got, []string{"config.json "}) {
			t.Errorf("downloads after damaging config.json = %q", got)
		}
		checkInstalled(t, h, filepath.Join(dir, "acme__tiny-model"))
	})

	t.Run("ResumeAfterDrop", func(t *testing.T) {
		h, srv := newFakeHub(t)
		h.mu.drops["model.safetensors"] = 2
		h.mu.drops["tokenizer.json"] = 1
		dir := t.TempDir()
		if _, err := testClient(srv).Pull(t.Context(), testRepo, "main", dir); err != nil {
			t.Fatal(err)
		}
		checkInstalled(t, h, filepath.Join(dir, "acme__tiny-model"))
		var ranges []string
		for _, d := range h.downloads() {
			if p, rg, _ := strings.Cut(d, " "); p == "model.safetensors" {
				ranges = append(ranges, rg)
			}
		}
		size := len(h.files["model.safetensors"])
		want := []string{"", fmt.Sprintf("bytes=%d-", size/2), fmt.Sprintf("bytes=%d-", size/2+(size-size/2)/2)}
		if !slices.Equal(ranges, want) {
			t.Errorf("weights requested with ranges %q, want %q", ranges, want)
		}
	})

	t.Run("ResumeAfterStall", func(t *testing.T) {
		h, srv := newFakeHub(t)
		h.mu.stalls["model.safetensors"] = 1
		dir := t.TempDir()
		c := testClient(srv)
		c.StallTimeout = 200 * time.Millisecond
		if _, err := c.Pull(t.Context(), testRepo, "main", dir); err != nil {
			t.Fatal(err)
		}
		checkInstalled(t, h, filepath.Join(dir, "acme__tiny-model"))
		size := len(h.files["model.safetensors"])
		if got := h.downloads(); !slices.Contains(got, fmt.Sprintf("model.safetensors bytes=%d-", size/2)) {
			t.Errorf("downloads %q do not resume the stalled transfer at %d", got, size/2)
		}
	})

	t.Run("HangingListing", func(t *testing.T) {
		h, srv := newFakeHub(t)
		h.mu.hangAPI = 1
		c := testClient(srv)
		c.StallTimeout = 200 * time.Millisecond
		dir := t.TempDir()
		if _, err := c.Pull(t.Context(), testRepo, "main", dir); err != nil {
			t.Fatal(err)
		}
		checkInstalled(t, h, filepath.Join(dir, "acme__tiny-model"))
	})

	t.Run("ResumeNextPull", func(t *testing.T) {
		h, srv := newFakeHub(t)
		h.mu.drops["model.safetensors"] = 1
		dir := t.TempDir()
		c := testClient(srv)
		c.Retries = -1
		_, err := c.Pull(t.Context(), testRepo, "main", dir)
		if err == nil {
			t.Fatal("pull with a dropped connection and no retries succeeded")
		}
		part := filepath.Join(dir, "acme__tiny-model", "model.safetensors.part")
		if st, err := os.Stat(part); err != nil || st.Size() == 0 {
			t.Fatalf("no resumable part left: %v", err)
		}
		if _, err := os.Stat(filepath.Join(dir, "acme__tiny-model", hub.ManifestFile)); err == nil {
			t.Fatal("manifest written for an unfinished pull")
		}
		if ms, _ := hub.List(dir); len(ms) != 0 {
			t.Errorf("List shows an unfinished pull: %v", ms)
		}
		h.resetDownloads()
		if _, err := c.Pull(t.Context(), testRepo, "main", dir); err != nil {
			t.Fatal(err)
		}
		checkInstalled(t, h, filepath.Join(dir, "acme__tiny-model"))
		if got := h.downloads(); len(got) != 1 || !strings.HasPrefix(got[0], "model.safetensors bytes=") {
			t.Errorf("second pull downloads = %q, want one ranged request for the weights", got)
		}
	})

	t.Run("Cancel", func(t *testing.T) {
		h, srv := newFakeHub(t)
		dir := t.TempDir()
		c := testClient(srv)
		ctx, cancel := context.WithCancel(t.Context())
		c.Progress = func(file string, done, total int64) {
			if file == "model.safetensors" && done >= 1<<20 {
				cancel()
			}
		}
		_, err := c.Pull(ctx, testRepo, "main", dir)
		if !errors.Is(err, context.Canceled) {
			t.Fatalf("err = %v, want context.Canceled", err)
		}
		if !strings.Contains(err.Error(), "resume") {
			t.Errorf("error %q does not say the pull can be resumed", err)
		}
		modelDir := filepath.Join(dir, "acme__tiny-model")
		if _, err := os.Stat(filepath.Join(modelDir, "model.safetensors")); err == nil {
			t.Fatal("final weights file exists after cancellation")
		}
		st, err := os.Stat(filepath.Join(modelDir, "model.safetensors.part"))
		if err != nil || st.Size() < 1<<20 {
			t.Fatalf("part after cancel: %v, %v", st, err)
		}
		h.resetDownloads()
		c.Progress = nil
		if _, err := c.Pull(t.Context(), testRepo, "main", dir); err != nil {
			t.Fatal(err)
		}
		checkInstalled(t, h, modelDir)
		if got := h.downloads(); len(got) != 1 || got[0] != fmt.Sprintf("model.safetensors bytes=%d-", st.Size()) {
			t.Errorf("resume downloads = %q, want a range from %d", got, st.Size())
		}
	})

	t.Run("IgnoresRange", func(t *testing.T) {
		h, srv := newFakeHub(t)
		h.mu.ignoreRange = true
		dir := t.TempDir()
		modelDir := filepath.Join(dir, "acme__tiny-model")
		os.MkdirAll(modelDir, 0o755)
		// Half of the weights from an earlier, interrupted pull.
		w := h.files["model.safetensors"]
		os.WriteFile(filepath.Join(modelDir, "model.safetensors.part"), w[:len(w)/2], 0o644)
		if _, err := testClient(srv).Pull(t.Context(), testRepo, "main", dir); err != nil {
			t.Fatal(err)
		}
		checkInstalled(t, h, modelDir)
		if got, want := h.downloads(), fmt.Sprintf("model.safetensors bytes=%d-", len(w)/2); !slices.Contains(got, want) {
			t.Errorf("downloads %q: the resume (%q) was not tried", got, want)
		}
	})

	t.Run("StalePart", func(t *testing.T) {
		// A part from another version of the file fails verification after
		// resuming; Pull restarts it from scratch.
		h, srv := newFakeHub(t)
		dir := t.TempDir()
		modelDir := filepath.Join(dir, "acme__tiny-model")
		os.MkdirAll(modelDir, 0o755)
		os.WriteFile(filepath.Join(modelDir, "model.safetensors.part"), bytes.Repeat([]byte{7}, 1000), 0o644)
		if _, err := testClient(srv).Pull(t.Context(), testRepo, "main", dir); err != nil {
			t.Fatal(err)
		}
		checkInstalled(t, h, modelDir)
	})

	t.Run("ErrChecksum", func(t *testing.T) {
		h, srv := newFakeHub(t)
		h.mu.corrupt["model.safetensors"] = true
		dir := t.TempDir()
		_, err := testClient(srv).Pull(t.Context(), testRepo, "main", dir)
		if !errors.Is(err, hub.ErrChecksum) {
			t.Fatalf("err = %v, want ErrChecksum", err)
		}
		for _, s := range []string{"model.safetensors", "sha256", "retry"} {
			if !strings.Contains(err.Error(), s) {
				t.Errorf("error %q does not mention %q", err, s)
			}
		}
		modelDir := filepath.Join(dir, "acme__tiny-model")
		for _, name := range []string{"model.safetensors", "model.safetensors.part", hub.ManifestFile} {
			if _, err := os.Stat(filepath.Join(modelDir, name)); err == nil {
				t.Errorf("%s exists after a checksum mismatch", name)
			}
		}
		// A corrupt small (non-LFS) file is caught by its git blob id.
		h.mu.Lock()
		h.mu.corrupt = map[string]bool{"config.json": true}
		h.mu.Unlock()
		if _, err := testClient(srv).Pull(t.Context(), testRepo, "main", t.TempDir()); !errors.Is(err, hub.ErrChecksum) || !strings.Contains(err.Error(), "config.json") {
			t.Errorf("corrupt config.json: err = %v, want ErrChecksum naming the file", err)
		}
	})

	t.Run("ErrNotFound", func(t *testing.T) {
		_, srv := newFakeHub(t)
		_, err := testClient(srv).Pull(t.Context(), "acme/no-such-model", "main", t.TempDir())
		if !errors.Is(err, holomem.ErrNotFound) || !strings.Contains(err.Error(), "acme/no-such-model") {
			t.Errorf("missing repo: err = %v, want ErrNotFound naming the repo", err)
		}
		_, err = testClient(srv).Pull(t.Context(), testRepo, "v9", t.TempDir())
		if !errors.Is(err, holomem.ErrNotFound) || !strings.Contains(err.Error(), `"v9"`) {
			t.Errorf("missing revision: err = %v, want ErrNotFound naming the revision", err)
		}
	})

	t.Run("NoSafetensors", func(t *testing.T) {
		h, srv := newFakeHub(t)
		delete(h.files, "model.safetensors")
		dir := t.TempDir()
		_, err := testClient(srv).Pull(t.Context(), testRepo, "main", dir)
		if !errors.Is(err, holomem.ErrNotFound) || !strings.Contains(err.Error(), "model.safetensors") {
			t.Errorf("err = %v, want ErrNotFound naming model.safetensors", err)
		}
		if got := h.downloads(); len(got) != 0 {
			t.Errorf("downloaded %v before finding the weights missing", got)
		}
	})

	t.Run("Token", func(t *testing.T) {
		h, srv := newFakeHub(t)
		h.mu.token = "secret"
		_, err := testClient(srv).Pull(t.Context(), testRepo, "main", t.TempDir())
		if !errors.Is(err, hub.ErrAccess) || !strings.Contains(err.Error(), "HF_TOKEN") {
			t.Errorf("no token: err = %v, want ErrAccess mentioning HF_TOKEN", err)
		}
		c := testClient(srv)
		c.Token = "secret"
		dir := t.TempDir()
		if _, err := c.Pull(t.Context(), testRepo, "main", dir); err != nil {
			t.Fatal(err) // the fake CDN rejects a leaked token
		}
		checkInstalled(t, h, filepath.Join(dir, "acme__tiny-model"))
	})

	t.Run("NoTreeAPI", func(t *testing.T) {
		h, srv := newFakeHub(t)
		h.mu.noTree = true
		dir := t.TempDir()
		m, err := testClient(srv).Pull(t.Context(), testRepo, "main", dir)
		if err != nil {
			t.Fatal(err)
		}
		checkInstalled(t, h, filepath.Join(dir, "acme__tiny-model"))
		for _, f := range m.Files {
			if f.SHA256 == "" || f.Size != int64(len(h.files[f.Path])) {
				t.Errorf("manifest entry %+v lacks size or sha256", f)
			}
		}
	})

	t.Run("ErrInvalid", func(t *testing.T) {
		c := &hub.Client{BaseURL: "http://127.0.0.1:1"}
		for _, repo := range []string{"", "a/b/c", "../etc", "a/..", "a b/c", "-a/b", "a/b.", "a--b/c", "/a"} {
			if _, err := c.Pull(t.Context(), repo, "main", t.TempDir()); !errors.Is(err, holomem.ErrInvalid) {
				t.Errorf("Pull(%q): err = %v, want ErrInvalid", repo, err)
			}
		}
	})
}

func TestFind(t *testing.T) {
	h, srv := newFakeHub(t)
	_ = h
	dir := t.TempDir()
	if _, err := testClient(srv).Pull(t.Context(), testRepo, "main", dir); err != nil {
		t.Fatal(err)
	}
	modelDir := filepath.Join(dir, "acme__tiny-model")
	for _, tt := range []struct {
		name, in, want string
	}{
		{"RepoID", testRepo, modelDir},
		{"ShortName", "tiny-model", modelDir},
		{"ShortNameCase", "Tiny-Model", modelDir},
		{"Directory", modelDir, modelDir},
	} {
		t.Run(tt.name, func(t *testing.T) {
			got, err := hub.Find(dir, tt.in)
			if err != nil || got != tt.want {
				t.Errorf("Find(%q) = %q, %v; want %q", tt.in, got, err, tt.want)
			}
		})
	}
	t.Run("ErrNotFound", func(t *testing.T) {
		_, err := hub.Find(dir, "acme/other")
		if !errors.Is(err, holomem.ErrNotFound) || !strings.Contains(err.Error(), "run: holomem model pull acme/other") {
			t.Errorf("err = %v, want ErrNotFound with the pull hint", err)
		}
		_, err = hub.Find(t.TempDir(), t.TempDir()) // a directory with no model
		if !errors.Is(err, holomem.ErrNotFound) {
			t.Errorf("empty directory: err = %v, want ErrNotFound", err)
		}
	})
	t.Run("Unfinished", func(t *testing.T) {
		other := filepath.Join(dir, "acme__partial")
		os.MkdirAll(other, 0o755)
		os.WriteFile(filepath.Join(other, "config.json"), []byte("{}"), 0o644)
		if _, err := hub.Find(dir, "acme/partial"); !errors.Is(err, holomem.ErrNotFound) {
			t.Errorf("config.json without weights or manifest: err = %v, want ErrNotFound", err)
		}
	})
}

func TestList(t *testing.T) {
	if ms, err := hub.List(filepath.Join(t.TempDir(), "missing")); err != nil || ms != nil {
		t.Errorf("List(missing) = %v, %v; want nothing", ms, err)
	}
	dir := t.TempDir()
	for _, repo := range []string{"z/last", "a/first"} {
		d := filepath.Join(dir, hub.DirName(repo))
		os.MkdirAll(d, 0o755)
		data, _ := json.Marshal(hub.Manifest{Repo: repo, Revision: "main"})
		os.WriteFile(filepath.Join(d, hub.ManifestFile), data, 0o644)
	}
	os.MkdirAll(filepath.Join(dir, "unfinished"), 0o755)
	ms, err := hub.List(dir)
	if err != nil {
		t.Fatal(err)
	}
	if len(ms) != 2 || ms[0].Repo != "a/first" || ms[1].Repo != "z/last" || ms[0].Dir != filepath.Join(dir, "a__first") {
		t.Errorf("List = %+v", ms)
	}
	os.WriteFile(filepath.Join(dir, "a__first", hub.ManifestFile), []byte("{"), 0o644)
	if _, err := hub.List(dir); err == nil || !strings.Contains(err.Error(), "a__first") {
		t.Errorf("corrupt manifest: err = %v, want one naming the directory", err)
	}
}

func TestDefaultDir(t *testing.T) {
	t.Setenv("HOLOMEM_MODEL_DIR", "/m")
	t.Setenv("XDG_DATA_HOME", "/x")
	t.Setenv("HOME", "/h")
	if got := hub.DefaultDir(); got != "/m" {
		t.Errorf("with HOLOMEM_MODEL_DIR: %q", got)
	}
	t.Setenv("HOLOMEM_MODEL_DIR", "")
	if got, want := hub.DefaultDir(), filepath.Join("/x", "holomem", "models"); got != want {
		t.Errorf("with XDG_DATA_HOME: %q, want %q", got, want)
	}
	t.Setenv("XDG_DATA_HOME", "")
	if got, want := hub.DefaultDir(), filepath.Join("/h", ".local", "share", "holomem", "models"); got != want {
		t.Errorf("with HOME: %q, want %q", got, want)
	}
}

func TestWanted(t *testing.T) {
	for _, tt := range []struct {
		path string
		want bool
	}{
		{"model.safetensors", true}, {"1_Pooling/config.json", true}, {"sentencepiece.bpe.model", true},
		{"pytorch_model.bin", false}, {"onnx/model.onnx", false}, {"tf_model.h5", false},
		{"flax_model.msgpack", false}, {"openvino/openvino_model.bin", false}, {"README.md", false},
		{"2_Dense/config.json", false}, {"model-00001-of-00002.safetensors", false},
	} {
		if got := hub.Wanted(tt.path); got != tt.want {
			t.Errorf("Wanted(%q) = %v, want %v", tt.path, got, tt.want)
		}
	}
}
