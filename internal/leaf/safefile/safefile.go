// Package safefile opens files a user or a download put in place (model
// weights, tokenizers, configs) the way package anchor opens anchors:
// regular files only, without blocking on a FIFO, and bounded in size, so
// a FIFO, a device (a link to /dev/zero) or a directory under the expected
// name is refused at once instead of hanging or filling memory.
package safefile

import (
	"errors"
	"fmt"
	"io"
	"os"
)

// ErrNotRegular is wrapped when the path names something other than a
// regular file (after following symlinks).
var ErrNotRegular = errors.New("not a regular file")

// ErrTooLarge is wrapped when the file is larger than the caller allows.
var ErrTooLarge = errors.New("file too large")

// Open opens path read-only without blocking and checks it is a regular
// file of at most maxBytes bytes (maxBytes <= 0: no limit).
func Open(path string, maxBytes int64) (*os.File, error) {
	f, err := os.OpenFile(path, os.O_RDONLY|openFlags, 0)
	if err != nil {
		return nil, err
	}
	st, err := f.Stat()
	if err != nil {
		f.Close()
		return nil, err
	}
	if !st.Mode().IsRegular() {
		f.Close()
		return nil, fmt.Errorf("%s: %w (%s)", path, ErrNotRegular, st.Mode().Type())
	}
	if maxBytes > 0 && st.Size() > maxBytes {
		f.Close()
		return nil, fmt.Errorf("%s: %w (%d bytes, the limit is %d)", path, ErrTooLarge, st.Size(), maxBytes)
	}
	return f, nil
}

// ReadFile is os.ReadFile through Open: a regular file of at most
// maxBytes bytes. Errors wrap fs.ErrNotExist for a missing file, as
// os.ReadFile's do.
func ReadFile(path string, maxBytes int64) ([]byte, error) {
	f, err := Open(path, maxBytes)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	r := io.Reader(f)
	if maxBytes > 0 {
		r = io.LimitReader(f, maxBytes+1)
	}
	data, err := io.ReadAll(r)
	if err != nil {
		return nil, err
	}
	if maxBytes > 0 && int64(len(data)) > maxBytes {
		return nil, fmt.Errorf("%s: %w (grew past %d bytes)", path, ErrTooLarge, maxBytes)
	}
	return data, nil
}
