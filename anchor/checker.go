package anchor

import (
	"context"
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"sync"
	"time"

	"github.com/holomem/holomem"
)

// Staleness reasons a [Checker] reports (the values of [holomem.Hit.Stale]).
const (
	Changed = "anchored file changed"
	Missing = "anchored file vanished"
)

// cacheCap bounds the hash cache; past it the cache starts over.
const cacheCap = 4096

// Checker decides whether anchored files still have their recorded hash.
// It is safe for concurrent use. Hashes are cached by path, size and
// modification time, so a recall that returns the same anchored facts
// again does not reread their files.
type Checker struct {
	rootOnce sync.Once
	findRoot func() string
	root     string

	mu    sync.Mutex
	cache map[string]cached
}

type cached struct {
	size  int64
	mtime time.Time
	hash  string
}

// NewChecker returns a checker for anchors under root. When root is "" and
// findRoot is set, findRoot is called once, the first time an anchor is
// checked (the CLI asks git for the project root only then, so commands
// that meet no anchored fact spawn no process).
func NewChecker(root string, findRoot func() string) *Checker {
	return &Checker{root: root, findRoot: findRoot, cache: map[string]cached{}}
}

// Root returns the anchor root, or "" when there is none.
func (c *Checker) Root() string {
	c.rootOnce.Do(func() {
		if c.root == "" && c.findRoot != nil {
			c.root = c.findRoot()
		}
	})
	return c.root
}

// Checkable returns nil when a's file can be checked: there is a root and
// the stored path is a clean relative path. Anchors written by older
// versions (absolute paths) or read outside the project are not checked.
func (c *Checker) Checkable(a *holomem.Anchor) error {
	if a == nil {
		return nil
	}
	if c.Root() == "" {
		return ErrNoRoot
	}
	return holomem.ValidateAnchorPath(a.Path)
}

// State returns "" when a is nil, cannot be checked (see [Checker.Checkable])
// or still has its recorded hash; else [Changed] or [Missing]. A file that
// turned into something other than a regular file, grew past [MaxSize] or
// could not be read counts as changed.
func (c *Checker) State(ctx context.Context, a *holomem.Anchor) string {
	if a == nil || c.Checkable(a) != nil {
		return ""
	}
	sum, err := c.hash(ctx, a.Path)
	switch {
	case errors.Is(err, fs.ErrNotExist), errors.Is(err, ErrOutside):
		// A symlink that now leads out of the root is, from inside the
		// root, a file that is gone.
		return Missing
	case ctx.Err() != nil:
		return ""
	case err != nil:
		return Changed
	case a.Hash != "" && sum != a.Hash:
		return Changed
	}
	return ""
}

func (c *Checker) hash(ctx context.Context, rel string) (string, error) {
	root := c.Root()
	st, err := statIn(root, rel)
	if err != nil {
		return "", err
	}
	c.mu.Lock()
	e, ok := c.cache[rel]
	c.mu.Unlock()
	if ok && e.size == st.Size() && e.mtime.Equal(st.ModTime()) {
		return e.hash, nil
	}
	sum, err := Hash(ctx, root, rel)
	if err != nil {
		return "", err
	}
	c.mu.Lock()
	if len(c.cache) >= cacheCap {
		clear(c.cache)
	}
	c.cache[rel] = cached{size: st.Size(), mtime: st.ModTime(), hash: sum}
	c.mu.Unlock()
	return sum, nil
}

// statIn stats rel under root without leaving it.
func statIn(root, rel string) (fs.FileInfo, error) {
	r, err := os.OpenRoot(root)
	if err != nil {
		return nil, err
	}
	defer r.Close()
	st, err := r.Stat(filepath.FromSlash(rel))
	if err != nil && isEscape(err) {
		return nil, ErrOutside
	}
	return st, err
}
