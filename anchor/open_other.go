//go:build !unix

package anchor

const openFlags = 0
