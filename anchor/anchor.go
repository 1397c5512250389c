package anchor

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"hash"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strings"

	"github.com/holomem/holomem"
)

// MaxSize is the largest file an anchor may name. Anchors describe source
// files and notes; a larger file is refused when a fact is written and
// reported as changed when it grows past the cap later.
const MaxSize = 8 << 20

// Errors callers can test with errors.Is. Each is also an
// [holomem.ErrInvalid], so transports map it to "invalid input".
var (
	ErrNoRoot     = fmt.Errorf("%w: no anchor root: run inside a git project or set --anchor-root ($HOLOMEM_ANCHOR_ROOT)", holomem.ErrInvalid)
	ErrOutside    = fmt.Errorf("%w: anchor is outside the anchor root", holomem.ErrInvalid)
	ErrNotRegular = fmt.Errorf("%w: anchor is not a regular file", holomem.ErrInvalid)
	ErrTooLarge   = fmt.Errorf("%w: anchored file is larger than %d MiB", holomem.ErrInvalid, MaxSize>>20)
)

// Rel turns a path a user typed (absolute, or relative to the working
// directory) into the anchor path stored with a fact: slash-separated and
// relative to root, after resolving symlinks on both sides. A path that
// resolves outside root is refused with [ErrOutside].
func Rel(root, p string) (string, error) {
	if root == "" {
		return "", ErrNoRoot
	}
	abs, err := filepath.Abs(p)
	if err != nil {
		return "", fmt.Errorf("anchor %s: %w", p, err)
	}
	resolved, err := filepath.EvalSymlinks(abs)
	if err != nil {
		return "", fmt.Errorf("anchor %s: %w", p, err)
	}
	rootResolved, err := filepath.EvalSymlinks(root)
	if err != nil {
		return "", fmt.Errorf("anchor root %s: %w", root, err)
	}
	rel, err := filepath.Rel(rootResolved, resolved)
	if err != nil || rel == "." || rel == ".." || strings.HasPrefix(rel, ".."+string(filepath.Separator)) || filepath.IsAbs(rel) {
		return "", fmt.Errorf("%w: %s is not inside %s", ErrOutside, p, root)
	}
	rel = filepath.ToSlash(rel)
	if err := holomem.ValidateAnchorPath(rel); err != nil {
		return "", err
	}
	return rel, nil
}

// Hash returns the hex SHA-256 of the file rel names under root. It opens
// the file through [os.Root] (no escape by "..", absolute paths or
// symlinks), without blocking on FIFOs, refuses anything but a regular
// file of at most [MaxSize] bytes, and stops when ctx is done.
func Hash(ctx context.Context, root, rel string) (string, error) {
	if root == "" {
		return "", ErrNoRoot
	}
	if err := holomem.ValidateAnchorPath(rel); err != nil {
		return "", err
	}
	r, err := os.OpenRoot(root)
	if err != nil {
		return "", fmt.Errorf("anchor root %s: %w", root, err)
	}
	defer r.Close()
	f, err := r.OpenFile(filepath.FromSlash(rel), os.O_RDONLY|openFlags, 0)
	if err != nil {
		if isEscape(err) {
			return "", fmt.Errorf("%w: %s", ErrOutside, rel)
		}
		return "", fmt.Errorf("anchor %s: %w", rel, err)
	}
	defer f.Close()
	st, err := f.Stat()
	if err != nil {
		return "", fmt.Errorf("anchor %s: %w", rel, err)
	}
	if !st.Mode().IsRegular() {
		return "", fmt.Errorf("%w: %s", ErrNotRegular, rel)
	}
	if st.Size() > MaxSize {
		return "", fmt.Errorf("%w: %s", ErrTooLarge, rel)
	}
	h := sha256.New()
	n, err := copyCtx(ctx, h, io.LimitReader(f, MaxSize+1))
	if err != nil {
		return "", fmt.Errorf("anchor %s: %w", rel, err)
	}
	if n > MaxSize {
		return "", fmt.Errorf("%w: %s", ErrTooLarge, rel)
	}
	return hex.EncodeToString(h.Sum(nil)), nil
}

// isEscape reports whether os.Root refused a path for leaving the root.
// os.Root has no exported sentinel for it; the refusal is a *PathError
// whose message says so.
func isEscape(err error) bool {
	var pe *fs.PathError
	return errors.As(err, &pe) && strings.Contains(pe.Err.Error(), "escapes from parent")
}

// copyCtx copies in 64 KiB steps, checking ctx between them.
func copyCtx(ctx context.Context, h hash.Hash, r io.Reader) (int64, error) {
	buf := make([]byte, 64<<10)
	var n int64
	for {
		if err := ctx.Err(); err != nil {
			return n, err
		}
		k, err := r.Read(buf)
		h.Write(buf[:k])
		n += int64(k)
		if errors.Is(err, io.EOF) {
			return n, nil
		}
		if err != nil {
			return n, err
		}
	}
}

// New anchors a fact to the file rel names under root (a clean relative
// path, as stored): it must be a regular file inside root, reached
// without leaving it through a symlink, of at most [MaxSize] bytes; its
// hash is recorded so a later change shows. Every door that takes an
// anchor (the CLI's add --anchor, the HTTP API) makes it here.
func New(ctx context.Context, root, rel string) (*holomem.Anchor, error) {
	if root == "" {
		return nil, ErrNoRoot
	}
	sum, err := Hash(ctx, root, rel)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, fmt.Errorf("%w: anchor %s: no such file under %s", holomem.ErrInvalid, rel, root)
	}
	if err != nil {
		return nil, err
	}
	return &holomem.Anchor{Path: rel, Hash: sum}, nil
}
