//go:build !unix

package embed

import (
	"errors"
	"os"
)

// allocArena allocates on the Go heap on this platform.
func allocArena(n int) ([]float32, []byte, error) { return make([]float32, n), nil, nil }

func freeArena(b []byte) error { return nil }

// mapRange is not available here; readPacked reads through a buffer.
func mapRange(f *os.File, off, n int64) (data []byte, mapping []byte, err error) {
	return nil, nil, errors.ErrUnsupported
}

func unmapRange(mapping []byte) {}
