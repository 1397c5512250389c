package embed

import "golang.org/x/sys/unix"

// adviseHugePages asks for transparent huge pages; it is advisory, and 4 KiB
// pages still work when the kernel declines.
func adviseHugePages(b []byte) { _ = unix.Madvise(b, unix.MADV_HUGEPAGE) }
