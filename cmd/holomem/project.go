package main

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"time"

	"github.com/holomem/holomem/internal/leaf/lazyre"
)

// gitTimeout bounds the git calls namespace detection makes: a hook must
// never hang on them.
const gitTimeout = 2 * time.Second

func gitOutput(dir string, args ...string) string {
	ctx, cancel := context.WithTimeout(context.Background(), gitTimeout)
	defer cancel()
	out, err := exec.CommandContext(ctx, "git", append([]string{"-C", dir}, args...)...).Output()
	if err != nil {
		return ""
	}
	return strings.TrimSpace(string(out))
}

// gitTopLevel returns the top-level directory of the git work tree holding
// dir, or "".
func gitTopLevel(dir string) string {
	return gitOutput(dir, "rev-parse", "--show-toplevel")
}

// remoteRE parses a remote URL, compiled on first use (see lazyre): only
// namespace detection in a git project with a remote needs it.
var remoteRE = lazyre.New(`^(?:[a-z+]+://)?(?:[^@/]+@)?([^/:]+)[:/](.+?)(?:\.git)?/?$`)

// projectNamespace derives the namespace of the git project holding dir:
// "host/owner/repo" from an origin remote on a server; for a repository
// whose origin is a local path, or that has no origin, "git:" and the
// first 12 hex digits of its root commit (the oldest, if history merged
// several), so the memory follows the checkout when it moves or is cloned
// again from the same local repository; "local:<top-level path>" for a
// repository without commits. It returns "" outside a git repository.
func projectNamespace(dir string) string {
	top := gitTopLevel(dir)
	if top == "" {
		return ""
	}
	if u := gitOutput(top, "remote", "get-url", "origin"); u != "" && !localRemote(u) {
		if m := remoteRE().FindStringSubmatch(u); m != nil {
			return strings.ToLower(m[1] + "/" + strings.Trim(m[2], "/"))
		}
	}
	if root := rootCommit(top); root != "" {
		return "git:" + root[:12]
	}
	return "local:" + filepath.Clean(top)
}

// rootCommit returns the hash of the oldest parentless commit of HEAD's
// history, or "" when there is none (no commits yet) or git fails.
// Finding it walks the whole history (a large fraction of a second for
// 100,000 commits), too slow for the prompt hook, so the answer is cached
// per work tree under the user's cache directory and checked with one
// cheap lookup: the cached commit must still be in the repository.
func rootCommit(top string) string {
	cache := rootCachePath(top)
	if b, err := os.ReadFile(cache); err == nil {
		if root := strings.TrimSpace(string(b)); isHash(root) && gitOutput(top, "cat-file", "-t", root) == "commit" {
			return root
		}
	}
	lines := strings.Fields(gitOutput(top, "rev-list", "--max-parents=0", "HEAD"))
	if len(lines) == 0 {
		return ""
	}
	// rev-list lists newest first: the last root is the oldest.
	root := lines[len(lines)-1]
	if !isHash(root) {
		return ""
	}
	if cache != "" {
		// Best effort: without the cache the next call walks again.
		if err := os.MkdirAll(filepath.Dir(cache), 0o700); err == nil {
			tmp := fmt.Sprintf("%s.%d.tmp", cache, os.Getpid())
			if os.WriteFile(tmp, []byte(root+"\n"), 0o600) == nil && os.Rename(tmp, cache) != nil {
				os.Remove(tmp)
			}
		}
	}
	return root
}

// rootCachePath is where rootCommit keeps the root of the work tree at
// top, or "" without a cache directory.
func rootCachePath(top string) string {
	dir, err := os.UserCacheDir()
	if err != nil {
		return ""
	}
	sum := sha256.Sum256([]byte(filepath.Clean(top)))
	return filepath.Join(dir, "holomem", "roots", hex.EncodeToString(sum[:16]))
}

// isHash reports whether s is a full SHA-1 or SHA-256 commit hash.
func isHash(s string) bool {
	return (len(s) == 40 || len(s) == 64) && strings.Trim(s, "0123456789abcdef") == ""
}

// localRemote reports whether a remote URL is a path on this machine
// ("/srv/app.git", "../app", "file:///srv/app.git", `C:\repos\app`)
// rather than a server (https://host/..., user@host:path, host:path), the
// way git tells them apart: a scp-like address has a ':' before any '/'.
func localRemote(u string) bool {
	if strings.HasPrefix(u, "file://") {
		return true
	}
	if strings.Contains(u, "://") {
		return false
	}
	colon := strings.IndexByte(u, ':')
	slash := strings.IndexAny(u, `/\`)
	if colon < 0 || (slash >= 0 && slash < colon) {
		return true
	}
	return colon == 1 // a Windows drive letter
}
