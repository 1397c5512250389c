//go:build !amd64 || purego

package embed

// simdKernels is empty: there are no assembly kernels for this build.
var simdKernels []*kernels
