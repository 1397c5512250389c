//go:build unix

package safefile

import "syscall"

// openFlags makes opening a FIFO return at once instead of waiting for a
// writer; fstat then refuses it as not a regular file.
const openFlags = syscall.O_NONBLOCK | syscall.O_NOCTTY
