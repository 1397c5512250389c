//go:build !amd64 || purego

package embed

// simdKernels is nil: there are no assembly kernels for this build.
var simdKernels *kernels
