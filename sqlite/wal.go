package sqlite

import (
	"context"
	"database/sql"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"time"
)

// WALNoticeKey is the meta key under which Open records a write-ahead log
// it found cut inside a frame; `holomem verify` and `doctor` report it
// until it is acknowledged ([Store.ClearWALNotice]).
const WALNoticeKey = "sqlite.wal_cut"

// walFrameHeader is the size of a WAL frame's header; a frame is this plus
// one page.
const walFrameHeader = 24

// walCut inspects the write-ahead log beside path before SQLite opens it,
// because SQLite's recovery silently keeps the valid prefix and the first
// checkpoint then deletes the evidence. SQLite only ever appends whole
// frames (32-byte header, then 24 + page-size bytes each), so a log whose
// length falls inside a frame was cut: a truncated copy, a torn write on
// power loss, a disk error. The transactions after the last whole commit
// frame are dropped by recovery, and nothing else records that they
// existed, so it is reported. One shape is not: a log ending exactly one
// frame header into a frame is what a process killed (SIGKILL) between
// writing a frame's header and its page leaves, which was never committed
// and never acknowledged. A writer in another process appending right now
// is told apart by looking twice. Returns "" when the log is whole or
// absent.
func walCut(path string) (string, error) {
	wal := path + "-wal"
	size, err := walSize(wal)
	if err != nil || size == 0 {
		return "", err
	}
	f, err := os.Open(wal)
	if err != nil {
		if errors.Is(err, fs.ErrNotExist) {
			return "", nil
		}
		return "", err
	}
	defer f.Close()
	hdr := make([]byte, 32)
	if _, err := io.ReadFull(f, hdr); err != nil {
		if errors.Is(err, io.ErrUnexpectedEOF) || errors.Is(err, io.EOF) {
			return fmt.Sprintf("the write-ahead log %s is %d bytes, shorter than its 32-byte header: it was cut", wal, size), nil
		}
		return "", err
	}
	if m := binary.BigEndian.Uint32(hdr); m != 0x377f0682 && m != 0x377f0683 {
		return "", nil // not a log SQLite would read either
	}
	page := int64(binary.BigEndian.Uint32(hdr[8:]))
	if page < 512 || page > 65536 || page&(page-1) != 0 {
		return "", nil
	}
	frame := walFrameHeader + page
	rem := (size - 32) % frame
	if rem == 0 || rem == walFrameHeader {
		return "", nil
	}
	time.Sleep(50 * time.Millisecond)
	if again, err := walSize(wal); err != nil || again != size {
		return "", err // a live writer is appending
	}
	return fmt.Sprintf("the write-ahead log %s ends %d bytes into a frame after %d whole frames: it was cut (a truncated copy, a torn write, a disk error); transactions after its last whole commit were dropped when the database was opened",
		wal, rem, (size-32)/frame), nil
}

func walSize(wal string) (int64, error) {
	fi, err := os.Stat(wal)
	if errors.Is(err, fs.ErrNotExist) {
		return 0, nil
	}
	if err != nil {
		return 0, err
	}
	return fi.Size(), nil
}

// recordWALCut keeps what walCut found, with the time, for verify and
// doctor; a read-only store cannot keep it and the open goes on.
func (s *Store) recordWALCut(ctx context.Context, notice string) {
	v := time.Now().UTC().Format(time.RFC3339) + ": " + notice
	_ = s.SetMeta(ctx, WALNoticeKey, v)
}

// WALNotice returns the recorded cut write-ahead log ("" when none): the
// time it was found and what was found.
func (s *Store) WALNotice(ctx context.Context) (string, error) {
	var v string
	err := s.rdb.QueryRowContext(ctx, "SELECT value FROM meta WHERE key = ?", WALNoticeKey).Scan(&v)
	if errors.Is(err, sql.ErrNoRows) {
		return "", nil
	}
	if err != nil {
		return "", fmt.Errorf("read the write-ahead log notice: %w", err)
	}
	return v, nil
}

// ClearWALNotice forgets a recorded cut write-ahead log, once someone has
// compared the store with its last backup.
func (s *Store) ClearWALNotice(ctx context.Context) error {
	err := s.update(ctx, func(w *wtx) error {
		_, err := w.exec("DELETE FROM meta WHERE key = ?", WALNoticeKey)
		return err
	})
	if err != nil {
		return fmt.Errorf("clear the write-ahead log notice: %w", err)
	}
	return nil
}
