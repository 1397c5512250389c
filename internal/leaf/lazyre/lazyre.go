// Package lazyre compiles regular expressions on first use.
//
// Package-level regexp.MustCompile runs in every process at start, even
// in one that never uses the expression: the prompt hook, a new process
// per prompt, compiled the importers' and the risk scanner's expressions
// for nothing (about a millisecond and 100 page faults). Tests still
// compile each expression they exercise, so a bad one fails them.
package lazyre

import (
	"regexp"
	"sync"
)

// New returns a function that compiles expr the first time it is called
// and returns the same *regexp.Regexp on every call. It panics, as
// regexp.MustCompile does, if expr does not compile.
func New(expr string) func() *regexp.Regexp {
	return sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(expr) })
}
