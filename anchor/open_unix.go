//go:build unix

package anchor

import "syscall"

// openFlags makes opening a FIFO return at once instead of waiting for a
// writer; fstat then refuses it as not a regular file.
const openFlags = syscall.O_NONBLOCK | syscall.O_NOCTTY
