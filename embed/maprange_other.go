//go:build !linux

package embed

import (
	"errors"
	"os"
)

// mapRange is only used on Linux; elsewhere readPacked reads through a
// buffer.
func mapRange(f *os.File, off, n int64) (data []byte, mapping []byte, err error) {
	return nil, nil, errors.ErrUnsupported
}

func unmapRange(mapping []byte) {}
