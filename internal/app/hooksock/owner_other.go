//go:build !unix

package hooksock

import "errors"

// errUnsupported: the hook socket needs Unix sockets, file modes and
// flock; elsewhere the hook always recalls itself.
var errUnsupported = errors.New("hook socket not supported on this system")

func checkPrivate(string) error { return errUnsupported }

func lockOwner(string) (func(), error) { return nil, errUnsupported }
