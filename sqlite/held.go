package sqlite

import (
	"os"
	"slices"
	"sync"
)

// held is the set of database files this process has open through a
// Store. Open reads a file's header, write-ahead log and WAL index with
// plain file descriptors before SQLite opens it, and that is only safe
// while no Store of this process holds the file: POSIX record locks belong
// to the process, and closing any descriptor of a file releases all of
// them. A second Store on a file would otherwise drop the first one's
// locks, and another process, finding the WAL index unlocked, would take
// itself for the only user and rebuild the index under the first Store.
// (SQLite's own opens are safe: its VFS shares one descriptor per file.)
var held struct {
	mu    sync.Mutex
	files []*heldFile
}

type heldFile struct {
	fi os.FileInfo
	n  int // Stores holding the file, and Opens in progress
}

// holdFile registers path, which must exist, as held by one more Store.
// When this process did not hold it already, check runs first, under the
// registry's lock, so no Open of the same file in this process can have
// SQLite connections on it meanwhile (and a second Open waits for the
// first one's check); an error from check leaves nothing registered.
// release undoes the registration; call it once, after the Store's
// connections are closed.
func holdFile(path string, check func() error) (release func(), err error) {
	fi, err := os.Stat(path)
	if err != nil {
		return nil, err
	}
	held.mu.Lock()
	defer held.mu.Unlock()
	i := slices.IndexFunc(held.files, func(h *heldFile) bool { return os.SameFile(h.fi, fi) })
	var h *heldFile
	if i >= 0 {
		h = held.files[i]
	} else {
		if err := check(); err != nil {
			return nil, err
		}
		h = &heldFile{fi: fi}
		held.files = append(held.files, h)
	}
	h.n++
	var once sync.Once
	return func() {
		once.Do(func() {
			held.mu.Lock()
			defer held.mu.Unlock()
			if h.n--; h.n == 0 {
				held.files = slices.DeleteFunc(held.files, func(x *heldFile) bool { return x == h })
			}
		})
	}, nil
}
