//go:build !unix

package embed

// allocArena allocates on the Go heap on this platform.
func allocArena(n int) ([]float32, []byte, error) { return make([]float32, n), nil, nil }

func freeArena(b []byte) error { return nil }
