//go:build !amd64 || purego

package embed

// simdKernels is empty: there are no assembly kernels for this build.
var simdKernels []*kernels

// packPanelSIMD packs nothing: packPanel's loop does it all.
func packPanelSIMD(panel, rows []float32, in int) int { return 0 }
