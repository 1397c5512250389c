//go:build !amd64 || purego

package vec

var hasAVX2 = false

func dot(a, b []float32) float32 { return DotGeneric(a, b) }

func dotInt8(a, b []int8) int32 { return dotInt8Generic(a, b) }
