//go:build unix

package embed

import (
	"os"

	"golang.org/x/sys/unix"
)

// mapFile maps the whole file read-only. Pages count towards RSS only once
// touched, and being file-backed they are shared with the page cache and
// can be dropped under memory pressure.
func mapFile(f *os.File, size int64) ([]byte, error) {
	if size == 0 || int64(int(size)) != size {
		return nil, nil
	}
	return unix.Mmap(int(f.Fd()), 0, int(size), unix.PROT_READ, unix.MAP_SHARED)
}

func unmapFile(b []byte) error {
	if b == nil {
		return nil
	}
	return unix.Munmap(b)
}
