//go:build linux

package sqlite_test

import (
	"os"
	"path/filepath"
	"testing"

	"golang.org/x/sys/unix"

	"github.com/holomem/holomem/sqlite"
)

// dmsByte is the byte of the -shm file SQLite's unix VFS read-locks for as
// long as a connection has the database open (UNIX_SHM_DMS). A process
// that finds it unlocked believes it is the only user of the file and
// rebuilds the shared WAL index under the others.
const dmsByte = 128

// dmsHeld reports whether some process holds a lock on the -shm's DMS
// byte. It asks through an open file description lock, which conflicts
// with the POSIX locks SQLite takes even in the same process, so the test
// can look at its own process's locks; f must stay open while stores are
// (closing any descriptor of a file drops the process's POSIX locks on it,
// which is the bug under test).
func dmsHeld(t *testing.T, f *os.File) bool {
	t.Helper()
	lk := unix.Flock_t{Type: unix.F_WRLCK, Whence: 0, Start: dmsByte, Len: 1}
	if err := unix.FcntlFlock(f.Fd(), unix.F_OFD_GETLK, &lk); err != nil {
		t.Fatalf("F_OFD_GETLK: %v", err)
	}
	return lk.Type != unix.F_UNLCK
}

// TestOpen_secondStoreKeepsLocks: opening a second Store on a file this
// process already holds must not release the first one's locks. Open's
// checks read the database and its -shm with plain file descriptors, and
// closing those drops every POSIX lock the process holds on the file, so
// another process would then take the file for unused and reset the WAL
// index under the first Store.
func TestOpen_secondStoreKeepsLocks(t *testing.T) {
	path := filepath.Join(t.TempDir(), "two.db")
	a, err := sqlite.Open(t.Context(), path)
	if err != nil {
		t.Fatal(err)
	}
	defer a.Close()
	if _, err := a.Stats(t.Context(), ""); err != nil { // a read: the WAL index is in use
		t.Fatal(err)
	}
	shm, err := os.Open(path + "-shm")
	if err != nil {
		t.Fatal(err)
	}
	// Closed last, after both stores: see dmsHeld.
	defer shm.Close()
	if !dmsHeld(t, shm) {
		t.Fatal("the first store holds no lock on the -shm's DMS byte: the probe does not see SQLite's locks")
	}
	for i := range 3 {
		b, err := sqlite.Open(t.Context(), path)
		if err != nil {
			t.Fatal(err)
		}
		if !dmsHeld(t, shm) {
			t.Fatalf("open %d: opening a second store on the file dropped the first store's locks", i)
		}
		if err := b.Close(); err != nil {
			t.Fatal(err)
		}
		if !dmsHeld(t, shm) {
			t.Fatalf("close %d: closing the second store dropped the first store's locks", i)
		}
	}
}
