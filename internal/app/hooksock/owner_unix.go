//go:build unix

package hooksock

import (
	"errors"
	"fmt"
	"os"
	"syscall"
)

// checkPrivate refuses a directory that is a symbolic link, is not the
// user's, or that others may enter: a socket there could be another
// user's impostor, or read by them.
func checkPrivate(dir string) error {
	fi, err := os.Lstat(dir)
	if err != nil {
		return err
	}
	if !fi.IsDir() {
		return errors.New("not a directory")
	}
	st, ok := fi.Sys().(*syscall.Stat_t)
	if !ok || int(st.Uid) != os.Getuid() {
		return errors.New("owned by another user")
	}
	if fi.Mode().Perm()&0o077 != 0 {
		return fmt.Errorf("mode %v lets other users in", fi.Mode().Perm())
	}
	return nil
}

// lockOwner takes an exclusive flock on path without waiting; unlock
// removes the file and releases the lock. The kernel drops the lock when
// the process ends, however it ends (the file then stays, for the next
// owner to lock).
func lockOwner(path string) (unlock func(), err error) {
	f, err := os.OpenFile(path, os.O_RDWR|os.O_CREATE, 0o600)
	if err != nil {
		return nil, fmt.Errorf("hook socket lock: %w", err)
	}
	if err := syscall.Flock(int(f.Fd()), syscall.LOCK_EX|syscall.LOCK_NB); err != nil {
		f.Close()
		if errors.Is(err, syscall.EWOULDBLOCK) {
			return nil, ErrOwned
		}
		return nil, fmt.Errorf("hook socket lock: %w", err)
	}
	// An owner that was closing may have removed the file between our
	// open and our lock: a lock on a removed file guards nothing, and a
	// third process could lock a new one. Try again later.
	held, err1 := f.Stat()
	named, err2 := os.Stat(path)
	if err1 != nil || err2 != nil || !os.SameFile(held, named) {
		f.Close()
		return nil, ErrOwned
	}
	return func() {
		os.Remove(path)
		f.Close()
	}, nil
}
