//go:build unix && !linux

package embed

// adviseHugePages does nothing where MADV_HUGEPAGE does not exist.
func adviseHugePages(b []byte) {}
