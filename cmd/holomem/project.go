package main

import (
	"context"
	"os/exec"
	"path/filepath"
	"strings"
	"time"

	"github.com/holomem/holomem/internal/lazyre"
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
// "host/owner/repo" from the origin remote, else "local:<top-level path>".
// It returns "" outside a git repository.
func projectNamespace(dir string) string {
	top := gitTopLevel(dir)
	if top == "" {
		return ""
	}
	if u := gitOutput(top, "remote", "get-url", "origin"); u != "" {
		if m := remoteRE().FindStringSubmatch(u); m != nil {
			return strings.ToLower(m[1] + "/" + strings.Trim(m[2], "/"))
		}
	}
	return "local:" + filepath.Clean(top)
}
