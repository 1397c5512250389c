//go:build !unix

package embed

import "os"

// mapFile does not map on this platform: tensors are read into the heap.
func mapFile(f *os.File, size int64) ([]byte, error) { return nil, nil }

func unmapFile(b []byte) error { return nil }
