package hub

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/holomem/holomem/errs"
)

// Defaults for [Client] fields left zero.
const (
	// DefaultBaseURL is the Hugging Face model hub.
	DefaultBaseURL = "https://huggingface.co"
	// DefaultRetries is how many times one Pull resumes a broken transfer.
	DefaultRetries = 3
	// DefaultRetryWait is the pause before the first retry; it doubles after
	// each further one.
	DefaultRetryWait = time.Second
	// DefaultStallTimeout is how long a transfer may deliver no bytes before
	// it is dropped and resumed.
	DefaultStallTimeout = time.Minute
)

// Errors a caller may need to tell apart; repos and files that do not
// exist are reported with [errs.ErrNotFound], bad repo ids with
// [errs.ErrInvalid].
var (
	// ErrChecksum means a downloaded file did not match the hub's checksum.
	// The partial file has been removed; pulling again starts it afresh.
	ErrChecksum = errors.New("hub: checksum mismatch")
	// ErrAccess means the hub refused the request: the model is private or
	// gated and needs a token (HF_TOKEN), or the token is wrong.
	ErrAccess = errors.New("hub: access denied")
)

// Client downloads models from a Hugging Face compatible hub. Set its
// fields before the first call and do not change them after; a Client is
// then safe for concurrent use, but two pulls of the same repo into the same
// directory at once would write the same partial files and must not run.
type Client struct {
	// BaseURL is the hub, without a trailing slash. Default DefaultBaseURL.
	BaseURL string
	// HTTP sends the requests. Default http.DefaultClient. Redirects to a
	// CDN are followed; Go drops the Authorization header when a redirect
	// leaves the hub's host.
	HTTP *http.Client
	// Token, when set, is sent as "Authorization: Bearer <Token>". NewClient
	// takes it from $HF_TOKEN.
	Token string
	// Progress, when set, is called as a file downloads: done bytes of total
	// (-1 when unknown), when a transfer starts, at most once per MiB, and at
	// the end. A resumed file starts at the bytes already on disk. It is
	// called from the goroutine running Pull; files already verified on disk
	// are not reported.
	Progress func(file string, done, total int64)
	// Retries is how many times one Pull retries a failed request or resumes
	// a broken transfer. 0 means DefaultRetries; negative means none.
	Retries int
	// RetryWait is the pause before the first retry. 0 means DefaultRetryWait.
	RetryWait time.Duration
	// StallTimeout drops a transfer that delivers nothing for this long (it
	// is then resumed), and bounds each listing request. 0 means
	// DefaultStallTimeout.
	StallTimeout time.Duration
}

// NewClient returns a Client for the public hub, with Token from $HF_TOKEN.
func NewClient() *Client {
	return &Client{BaseURL: DefaultBaseURL, HTTP: http.DefaultClient, Token: os.Getenv("HF_TOKEN")}
}

// wantedFiles are what a sentence model needs: the transformer config and
// safetensors weights, the tokenizer in its usual forms, and the
// sentence-transformers pooling configuration. Other weight formats
// (pytorch_model.bin, onnx/, tf/, flax, openvino) and sharded safetensors
// are never downloaded.
var wantedFiles = []string{
	"config.json",
	"tokenizer.json",
	"tokenizer_config.json",
	"special_tokens_map.json",
	"sentencepiece.bpe.model",
	"vocab.txt",
	"modules.json",
	"sentence_bert_config.json",
	"config_sentence_transformers.json",
	"1_Pooling/config.json",
	"model.safetensors",
}

// requiredFiles must be in the repo, or Pull fails before downloading.
var requiredFiles = []string{"config.json", "model.safetensors"}

// Wanted reports whether Pull downloads a repo file (path relative to the
// repo root, forward slashes).
func Wanted(path string) bool { return slices.Contains(wantedFiles, path) }

// remoteFile is a repo file as the hub lists it.
type remoteFile struct {
	Path   string
	Size   int64  // -1 when the listing had no sizes
	SHA256 string // LFS files: hex SHA-256 of the content
	GitOID string // other files: git blob id (SHA-1 of "blob <size>\0" + content)
}

func (c *Client) baseURL() string {
	if c.BaseURL == "" {
		return DefaultBaseURL
	}
	return strings.TrimRight(c.BaseURL, "/")
}

func (c *Client) stallTimeout() time.Duration {
	if c.StallTimeout <= 0 {
		return DefaultStallTimeout
	}
	return c.StallTimeout
}

func (c *Client) httpClient() *http.Client {
	if c.HTTP == nil {
		return http.DefaultClient
	}
	return c.HTTP
}

// Pull downloads a sentence model's files (see [Wanted]) from repo at
// revision ("" means "main") into dir/<DirName(repo)>/ and returns the
// manifest it wrote there.
//
// Each file is written to <name>.part, resumed with an HTTP Range request
// when a .part is already there (a server that ignores Range is detected
// and the file restarted), verified against the hub's SHA-256 (LFS files)
// or git blob id (other files), and renamed into place. Files already
// present and verified are not downloaded again, so a second Pull of an
// unchanged model transfers only the listing. manifest.json is written
// last; until then the model does not count as installed.
//
// When ctx is cancelled Pull stops at once and leaves the .part file for
// the next Pull to resume. A repo that does not exist is an error wrapping
// [errs.ErrNotFound]; a checksum mismatch wraps [ErrChecksum] (the part
// is removed: pull again to retry); a refused request wraps [ErrAccess].
func (c *Client) Pull(ctx context.Context, repo, revision, dir string) (*Manifest, error) {
	if err := validRepo(repo); err != nil {
		return nil, err
	}
	if revision == "" {
		revision = "main"
	}
	if strings.ContainsAny(revision, "\x00\r\n") || revision == "." || revision == ".." {
		return nil, fmt.Errorf("pull %s: bad revision %q: %w", repo, revision, errs.ErrInvalid)
	}

	files, commit, err := c.listFiles(ctx, repo, revision)
	if err != nil {
		return nil, fmt.Errorf("pull %s: %w", repo, err)
	}
	ref := revision
	if commit != "" {
		ref = commit // pin the snapshot: the branch may move while we download
	}

	modelDir := filepath.Join(dir, DirName(repo))
	if err := os.MkdirAll(modelDir, 0o700); err != nil {
		return nil, fmt.Errorf("pull %s: %w", repo, err)
	}
	old, _ := readManifest(modelDir) // nil when absent or unreadable: verify by hashing
	m := &Manifest{Repo: repo, Revision: revision, Commit: commit, Dir: modelDir}
	for _, f := range files {
		if err := ctx.Err(); err != nil {
			return nil, fmt.Errorf("pull %s: interrupted (run the pull again to resume): %w", repo, err)
		}
		got, err := c.ensure(ctx, repo, ref, modelDir, f, old)
		if err != nil {
			return nil, fmt.Errorf("pull %s: %s: %w", repo, f.Path, err)
		}
		m.Files = append(m.Files, got)
	}
	m.PulledAt = time.Now().UTC().Truncate(time.Second)
	if err := writeManifest(m); err != nil {
		return nil, fmt.Errorf("pull %s: write manifest: %w", repo, err)
	}
	return m, nil
}

// listFiles returns the wanted files of the repo, small ones first and the
// weights last, and the commit sha the revision resolves to.
func (c *Client) listFiles(ctx context.Context, repo, revision string) ([]remoteFile, string, error) {
	var info struct {
		SHA      string `json:"sha"`
		Siblings []struct {
			RFilename string `json:"rfilename"`
		} `json:"siblings"`
	}
	u := c.baseURL() + "/api/models/" + repo + "/revision/" + url.PathEscape(revision)
	if _, err := c.getJSON(ctx, u, &info); err != nil {
		return nil, "", apiError(err, repo, revision)
	}
	ref := revision
	if info.SHA != "" {
		ref = info.SHA
	}

	byPath := map[string]remoteFile{}
	tree, err := c.tree(ctx, repo, ref)
	switch {
	case err == nil:
		for _, e := range tree {
			if e.Type != "file" && e.Type != "" || !Wanted(e.Path) {
				continue
			}
			f := remoteFile{Path: e.Path, Size: e.Size}
			if e.LFS != nil {
				f.SHA256, f.Size = strings.ToLower(e.LFS.OID), e.LFS.Size
			} else {
				f.GitOID = strings.ToLower(e.OID)
			}
			byPath[e.Path] = f
		}
	case errors.Is(err, errs.ErrNotFound):
		// A hub without the tree API: take the names from the siblings and
		// check sizes only against what the server sends.
		for _, s := range info.Siblings {
			if Wanted(s.RFilename) {
				byPath[s.RFilename] = remoteFile{Path: s.RFilename, Size: -1}
			}
		}
	default:
		return nil, "", apiError(err, repo, revision)
	}
	for _, r := range requiredFiles {
		if _, ok := byPath[r]; !ok {
			return nil, "", fmt.Errorf("revision %s has no %s (holomem needs config.json and safetensors weights): %w",
				revision, r, errs.ErrNotFound)
		}
	}
	files := make([]remoteFile, 0, len(byPath))
	for _, f := range byPath {
		files = append(files, f)
	}
	slices.SortFunc(files, func(a, b remoteFile) int {
		// Weights last, so a directory with config.json and
		// model.safetensors has everything else too.
		aw, bw := a.Path == "model.safetensors", b.Path == "model.safetensors"
		if aw != bw {
			if aw {
				return 1
			}
			return -1
		}
		return strings.Compare(a.Path, b.Path)
	})
	return files, info.SHA, nil
}

// treeEntry is one entry of GET /api/models/{repo}/tree/{rev}.
type treeEntry struct {
	Type string `json:"type"`
	OID  string `json:"oid"`
	Size int64  `json:"size"`
	Path string `json:"path"`
	LFS  *struct {
		OID  string `json:"oid"`
		Size int64  `json:"size"`
	} `json:"lfs"`
}

// tree lists the repo recursively, following Link rel="next" pages.
func (c *Client) tree(ctx context.Context, repo, ref string) ([]treeEntry, error) {
	u := c.baseURL() + "/api/models/" + repo + "/tree/" + url.PathEscape(ref) + "?recursive=true"
	var all []treeEntry
	for page := 0; u != ""; page++ {
		if page == 1000 {
			return nil, fmt.Errorf("list files: more than 1000 pages")
		}
		var entries []treeEntry
		next, err := c.getJSON(ctx, u, &entries)
		if err != nil {
			return nil, err
		}
		all = append(all, entries...)
		u = next
	}
	return all, nil
}

// statusError is a non-success HTTP status.
type statusError struct {
	url       string
	code      int
	status    string
	errorCode string // X-Error-Code
}

func (e *statusError) Error() string {
	return fmt.Sprintf("GET %s: %s", e.url, e.status)
}

// Unwrap maps statuses to sentinels.
func (e *statusError) Unwrap() error {
	switch {
	case e.errorCode == "RepoNotFound" || e.errorCode == "RevisionNotFound" || e.errorCode == "EntryNotFound":
		return errs.ErrNotFound
	case e.code == http.StatusNotFound:
		return errs.ErrNotFound
	case e.code == http.StatusUnauthorized || e.code == http.StatusForbidden || e.errorCode == "GatedRepo":
		return ErrAccess
	}
	return nil
}

// temporary reports whether retrying may help.
func (e *statusError) temporary() bool {
	return e.code >= 500 || e.code == http.StatusRequestTimeout || e.code == http.StatusTooManyRequests
}

// apiError turns a listing error into a message a user can act on.
func apiError(err error, repo, revision string) error {
	var se *statusError
	if !errors.As(err, &se) {
		return err
	}
	switch {
	case se.errorCode == "RevisionNotFound":
		return fmt.Errorf("revision %q not found: %w", revision, err)
	case errors.Is(err, errs.ErrNotFound):
		return fmt.Errorf("model %q not found (check the repo id; private and gated models need HF_TOKEN): %w", repo, err)
	case errors.Is(err, ErrAccess):
		return fmt.Errorf("model %q needs a token with access (set HF_TOKEN; gated models must be accepted on the hub first): %w", repo, err)
	}
	return err
}

func (c *Client) newRequest(ctx context.Context, u string) (*http.Request, error) {
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, u, nil)
	if err != nil {
		return nil, err
	}
	req.Header.Set("User-Agent", "holomem")
	if c.Token != "" {
		req.Header.Set("Authorization", "Bearer "+c.Token)
	}
	return req, nil
}

// maxJSON bounds an API response; model listings are a few KiB a page.
const maxJSON = 32 << 20

// getJSON decodes a JSON API response and returns the next page's URL from
// a Link header ("" when there is none). It retries like downloads do.
func (c *Client) getJSON(ctx context.Context, u string, v any) (next string, err error) {
	err = c.retry(ctx, func() error {
		// A listing is small: give each attempt the stall timeout in all.
		actx, cancel := context.WithTimeout(ctx, c.stallTimeout())
		defer cancel()
		req, err := c.newRequest(actx, u)
		if err != nil {
			return err
		}
		req.Header.Set("Accept", "application/json")
		resp, err := c.httpClient().Do(req)
		if err != nil {
			return retryable(err)
		}
		defer resp.Body.Close()
		if resp.StatusCode != http.StatusOK {
			// Drain a little so the connection can be reused.
			io.Copy(io.Discard, io.LimitReader(resp.Body, 64<<10))
			return statusErr(u, resp)
		}
		if err := json.NewDecoder(io.LimitReader(resp.Body, maxJSON)).Decode(v); err != nil {
			if ctx.Err() == nil && actx.Err() != nil {
				return retryable(fmt.Errorf("GET %s: %w", u, err))
			}
			return fmt.Errorf("GET %s: decode: %w", u, err)
		}
		next = nextLink(resp.Header.Get("Link"), resp.Request.URL)
		return nil
	})
	return next, err
}

func statusErr(u string, resp *http.Response) error {
	se := &statusError{url: u, code: resp.StatusCode, status: resp.Status, errorCode: resp.Header.Get("X-Error-Code")}
	if se.temporary() {
		return retryable(se)
	}
	return se
}

// nextLink returns the rel="next" target of an RFC 8288 Link header,
// resolved against base.
func nextLink(header string, base *url.URL) string {
	for _, part := range strings.Split(header, ",") {
		target, params, ok := strings.Cut(part, ";")
		if !ok || !strings.Contains(strings.ReplaceAll(params, " ", ""), `rel="next"`) {
			continue
		}
		target = strings.TrimSpace(target)
		if !strings.HasPrefix(target, "<") || !strings.HasSuffix(target, ">") {
			continue
		}
		ref, err := url.Parse(target[1 : len(target)-1])
		if err != nil {
			continue
		}
		if base != nil {
			ref = base.ResolveReference(ref)
		}
		return ref.String()
	}
	return ""
}

// retryableError marks an error worth retrying (network trouble, 5xx, a
// broken or stalled transfer).
type retryableError struct{ err error }

func (e *retryableError) Error() string { return e.err.Error() }
func (e *retryableError) Unwrap() error { return e.err }

func retryable(err error) error { return &retryableError{err} }

// retry runs fn until it succeeds, fails with an error not marked
// retryable, ctx is done, or the retries are spent.
func (c *Client) retry(ctx context.Context, fn func() error) error {
	retries := c.Retries
	if retries == 0 {
		retries = DefaultRetries
	}
	wait := c.RetryWait
	if wait <= 0 {
		wait = DefaultRetryWait
	}
	for attempt := 0; ; attempt++ {
		err := fn()
		if err == nil {
			return nil
		}
		if ctx.Err() != nil {
			if !errors.Is(err, ctx.Err()) {
				err = fmt.Errorf("%w: %w", ctx.Err(), err)
			}
			return err
		}
		var re *retryableError
		if !errors.As(err, &re) || attempt >= retries {
			return err
		}
		t := time.NewTimer(wait)
		select {
		case <-ctx.Done():
			t.Stop()
			return context.Cause(ctx)
		case <-t.C:
		}
		wait *= 2
	}
}

// validRepo checks a repo id: "name" or "owner/name", each part 1-96 of
// [A-Za-z0-9._-], not starting or ending with "-" or ".", without "--" or
// "..". This also keeps the id safe to use as a directory name.
func validRepo(repo string) error {
	bad := func(why string) error {
		return fmt.Errorf("model %q: %s (want owner/name): %w", repo, why, errs.ErrInvalid)
	}
	parts := strings.Split(repo, "/")
	if len(parts) > 2 {
		return bad("too many slashes")
	}
	for _, p := range parts {
		if p == "" || len(p) > 96 {
			return bad("empty or too long part")
		}
		for _, r := range p {
			if !('a' <= r && r <= 'z' || 'A' <= r && r <= 'Z' || '0' <= r && r <= '9' || r == '-' || r == '_' || r == '.') {
				return bad(fmt.Sprintf("character %q not allowed", r))
			}
		}
		if strings.Contains(p, "..") || strings.Contains(p, "--") || strings.Trim(p, "-.") != p {
			return bad(`"..", "--" or a leading or trailing "-" or "."`)
		}
	}
	return nil
}
