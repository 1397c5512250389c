package embed

import (
	"os"

	"golang.org/x/sys/unix"
)

// mapRange maps n bytes of f from off, read-only and with the page tables
// filled at once (MAP_POPULATE: one system call instead of a fault per
// page). The caller unmaps it with unmapRange.
func mapRange(f *os.File, off, n int64) (data []byte, mapping []byte, err error) {
	page := int64(os.Getpagesize())
	start := off &^ (page - 1)
	b, err := unix.Mmap(int(f.Fd()), start, int(off+n-start), unix.PROT_READ, unix.MAP_SHARED|unix.MAP_POPULATE)
	if err != nil {
		return nil, nil, err
	}
	return b[off-start:], b, nil
}

func unmapRange(mapping []byte) { _ = unix.Munmap(mapping) }
