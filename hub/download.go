package hub

import (
	"context"
	"crypto/sha1"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"hash"
	"io"
	"net/http"
	"net/url"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"time"
)

// ensure makes the file present and verified in modelDir, downloading only
// what is missing.
func (c *Client) ensure(ctx context.Context, repo, ref, modelDir string, f remoteFile, old *Manifest) (File, error) {
	target := filepath.Join(modelDir, filepath.FromSlash(f.Path))
	if st, err := os.Stat(target); err == nil && st.Mode().IsRegular() && (f.Size < 0 || st.Size() == f.Size) {
		if rec := old.file(f.Path); rec != nil && rec.Size == st.Size() && rec.matches(f) {
			return *rec, nil // verified by an earlier pull; no need to hash again
		}
		if rec, err := hashFile(target, f); err == nil && rec.matches(f) {
			return rec, nil
		}
		// Present but different: download over it.
	}
	if err := os.MkdirAll(filepath.Dir(target), 0o700); err != nil {
		return File{}, err
	}
	u := c.baseURL() + "/" + repo + "/resolve/" + url.PathEscape(ref) + "/" + escapePath(f.Path)
	var rec File
	err := c.retry(ctx, func() error {
		var err error
		rec, err = c.download(ctx, u, target, f)
		return err
	})
	return rec, err
}

// file returns the manifest's record of a path, or nil.
func (m *Manifest) file(path string) *File {
	if m == nil {
		return nil
	}
	for i := range m.Files {
		if m.Files[i].Path == path {
			return &m.Files[i]
		}
	}
	return nil
}

// matches reports whether a local record agrees with the hub's listing.
// A listing without checksums (no tree API) trusts the record.
func (rec *File) matches(f remoteFile) bool {
	switch {
	case f.Size >= 0 && rec.Size != f.Size:
		return false
	case f.SHA256 != "":
		return rec.SHA256 == f.SHA256
	case f.GitOID != "":
		return rec.GitOID == f.GitOID
	}
	return true
}

func escapePath(p string) string {
	segs := strings.Split(p, "/")
	for i, s := range segs {
		segs[i] = url.PathEscape(s)
	}
	return strings.Join(segs, "/")
}

// hashes computes a file's SHA-256 and, for a non-LFS file whose size is
// known in advance, its git blob id.
type hashes struct {
	sha     hash.Hash
	git     hash.Hash // nil when not wanted
	size    int64
	wantGit bool
}

func newHashes(f remoteFile) *hashes {
	h := &hashes{sha: sha256.New(), size: f.Size, wantGit: f.Size >= 0 && f.SHA256 == ""}
	h.reset()
	return h
}

func (h *hashes) reset() {
	h.sha.Reset()
	h.git = nil
	if h.wantGit {
		h.git = sha1.New()
		fmt.Fprintf(h.git, "blob %d\x00", h.size)
	}
}

func (h *hashes) Write(p []byte) (int, error) {
	h.sha.Write(p)
	if h.git != nil {
		h.git.Write(p)
	}
	return len(p), nil
}

// record returns the manifest entry for content of n bytes.
func (h *hashes) record(f remoteFile, n int64) File {
	rec := File{Path: f.Path, Size: n, SHA256: hex.EncodeToString(h.sha.Sum(nil)), LFS: f.SHA256 != ""}
	if f.SHA256 == "" && h.git != nil {
		rec.GitOID = hex.EncodeToString(h.git.Sum(nil))
	}
	return rec
}

// verify checks content against the listing and returns a message when it
// does not match.
func (rec *File) verify(f remoteFile) error {
	switch {
	case f.Size >= 0 && rec.Size != f.Size:
		return fmt.Errorf("%w: got %d bytes, want %d", ErrChecksum, rec.Size, f.Size)
	case f.SHA256 != "" && rec.SHA256 != f.SHA256:
		return fmt.Errorf("%w: got sha256 %s, want %s", ErrChecksum, rec.SHA256, f.SHA256)
	case f.SHA256 == "" && f.GitOID != "" && rec.GitOID != f.GitOID:
		return fmt.Errorf("%w: got git blob %s, want %s", ErrChecksum, rec.GitOID, f.GitOID)
	}
	return nil
}

func hashFile(path string, f remoteFile) (File, error) {
	r, err := os.Open(path)
	if err != nil {
		return File{}, err
	}
	defer r.Close()
	h := newHashes(f)
	n, err := io.Copy(h, r)
	if err != nil {
		return File{}, err
	}
	return h.record(f, n), nil
}

// progressEvery is how many bytes pass between Progress calls.
const progressEvery = 1 << 20

// download fetches one file into target+".part", resuming what is there,
// verifies it and renames it into place. Errors worth retrying (a broken
// transfer) are marked retryable and leave the part; a checksum mismatch of
// a fresh download removes the part.
func (c *Client) download(ctx context.Context, u, target string, f remoteFile) (File, error) {
	part := target + ".part"
	w, err := os.OpenFile(part, os.O_RDWR|os.O_CREATE, 0o600)
	if err != nil {
		return File{}, err
	}
	defer w.Close() // after a successful rename this is a no-op error

	h := newHashes(f)
	off, err := w.Seek(0, io.SeekEnd)
	if err != nil {
		return File{}, err
	}
	restart := func() error {
		off = 0
		h.reset()
		if err := w.Truncate(0); err != nil {
			return err
		}
		_, err := w.Seek(0, io.SeekStart)
		return err
	}
	if f.Size >= 0 && off > f.Size {
		if err := restart(); err != nil {
			return File{}, err
		}
	}
	if off > 0 { // hash what is already there
		if _, err := w.Seek(0, io.SeekStart); err != nil {
			return File{}, err
		}
		if _, err := io.CopyN(h, w, off); err != nil {
			return File{}, err
		}
	}
	resumed := off > 0

	if f.Size < 0 || off < f.Size {
		n, err := c.transfer(ctx, u, w, h, f, off, restart)
		off = n
		if err != nil {
			return File{}, err
		}
	}

	rec := h.record(f, off)
	if err := rec.verify(f); err != nil {
		w.Close()
		os.Remove(part)
		if resumed {
			// The old part may have come from another version of the file:
			// start afresh once before blaming the server.
			return File{}, retryable(fmt.Errorf("resumed download did not verify, restarting: %w", err))
		}
		return File{}, fmt.Errorf("%w; the partial download was removed, run the pull again to retry", err)
	}
	if err := w.Sync(); err != nil {
		return File{}, err
	}
	if err := w.Close(); err != nil {
		return File{}, err
	}
	if err := os.Rename(part, target); err != nil {
		return File{}, err
	}
	return rec, nil
}

// transfer requests the bytes from off on and appends them to w (restarting
// from 0 if the server ignores Range) and returns the new length of w.
func (c *Client) transfer(ctx context.Context, u string, w *os.File, h *hashes, f remoteFile, off int64, restart func() error) (int64, error) {
	stall := c.stallTimeout()
	errStalled := fmt.Errorf("no data for %s", stall)
	actx, cancel := context.WithCancelCause(ctx)
	defer cancel(nil)
	watchdog := time.AfterFunc(stall, func() { cancel(errStalled) })
	defer watchdog.Stop()

	req, err := c.newRequest(actx, u)
	if err != nil {
		return off, err
	}
	if off > 0 {
		req.Header.Set("Range", fmt.Sprintf("bytes=%d-", off))
	}
	resp, err := c.httpClient().Do(req)
	if err != nil {
		return off, c.transferError(ctx, actx, err)
	}
	defer resp.Body.Close()

	switch resp.StatusCode {
	case http.StatusOK:
		if off > 0 { // the server ignored Range: start over
			if err := restart(); err != nil {
				return 0, err
			}
			off = 0
		}
	case http.StatusPartialContent:
		if start, ok := contentRangeStart(resp.Header.Get("Content-Range")); !ok || start != off {
			if err := restart(); err != nil {
				return 0, err
			}
			return 0, retryable(fmt.Errorf("server resumed at %q, want byte %d; restarting", resp.Header.Get("Content-Range"), off))
		}
	case http.StatusRequestedRangeNotSatisfiable:
		// The part is as long as the file or longer: verify decides, or
		// start over when the size is unknown.
		if f.Size >= 0 && off == f.Size {
			return off, nil
		}
		if err := restart(); err != nil {
			return 0, err
		}
		return 0, retryable(fmt.Errorf("server cannot resume at byte %d; restarting", off))
	default:
		return off, statusErr(u, resp)
	}

	total := f.Size
	if total < 0 && resp.StatusCode == http.StatusOK && resp.ContentLength >= 0 {
		total = resp.ContentLength
	}
	var body io.Reader = resp.Body
	if f.Size >= 0 {
		body = io.LimitReader(body, f.Size-off+1) // one more byte shows an oversized file
	}
	buf := make([]byte, 256<<10)
	reported := int64(-1)
	report := func() {
		if c.Progress != nil && (off-reported >= progressEvery || off == total) && off != reported {
			c.Progress(f.Path, off, total)
			reported = off
		}
	}
	report()
	for {
		n, rerr := body.Read(buf)
		if n > 0 {
			watchdog.Reset(stall)
			if _, err := w.Write(buf[:n]); err != nil {
				return off, err
			}
			h.Write(buf[:n])
			off += int64(n)
			report()
		}
		if ctx.Err() != nil { // the body may still hold buffered bytes
			return off, c.transferError(ctx, actx, ctx.Err())
		}
		if rerr == io.EOF {
			break
		}
		if rerr != nil {
			return off, c.transferError(ctx, actx, rerr)
		}
	}
	if f.Size >= 0 && off < f.Size {
		return off, retryable(fmt.Errorf("transfer ended at byte %d of %d", off, f.Size))
	}
	if c.Progress != nil && off != reported {
		c.Progress(f.Path, off, total)
	}
	return off, nil
}

// transferError classifies a network error: the caller's cancellation is
// final, a stall or broken connection is retried (and resumed).
func (c *Client) transferError(ctx, actx context.Context, err error) error {
	if ctx.Err() != nil {
		return fmt.Errorf("download interrupted (run the pull again to resume): %w", context.Cause(ctx))
	}
	if cause := context.Cause(actx); cause != nil {
		return retryable(fmt.Errorf("transfer stalled: %w", cause))
	}
	return retryable(fmt.Errorf("transfer broken: %w", err))
}

// contentRangeStart parses the first byte of "bytes START-END/TOTAL".
func contentRangeStart(v string) (int64, bool) {
	v, ok := strings.CutPrefix(v, "bytes ")
	if !ok {
		return 0, false
	}
	s, _, ok := strings.Cut(v, "-")
	if !ok {
		return 0, false
	}
	n, err := strconv.ParseInt(s, 10, 64)
	return n, err == nil
}
