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
// checkpoint then deletes the evidence. Two signs of a cut log:
//
//   - The shared-memory index (-shm) left by the last writer says more
//     frames were committed (its mxFrame) than the log holds whole: frames
//     that were acknowledged are gone. The index is trusted only when its
//     two header copies agree and its salts are the log's (the same log
//     generation); it is read before the log's length, so a writer
//     appending meanwhile can only make the log longer, never a false
//     alarm.
//   - Without an index: SQLite appends whole frames (32-byte header, then
//     24 + page-size bytes each), and a process killed while appending can
//     leave only a partial frame ending at an OS page boundary of the file
//     or right after a frame header (the kernel stops a write at a page
//     when the process is killed). A length ending elsewhere inside a frame
//     was cut: a truncated copy, a disk error.
//
// A cut on a page boundary with no index left cannot be told from a killed
// writer's uncommitted tail and is not reported. A writer in another
// process appending right now is told apart by looking twice. Returns ""
// when the log looks whole or is absent.
func walCut(path string) (string, error) {
	wal := path + "-wal"
	committed, salt := shmCommitted(path + "-shm")
	size, err := walSize(wal)
	if err != nil {
		return "", err
	}
	if size == 0 {
		// SQLite deletes the log and its index together when the last
		// connection closes, and empties the index (mxFrame 0) when it
		// truncates the log; an index that still counts frames not yet
		// copied into the database, beside a log that is gone or empty,
		// means someone removed the log: those commits are lost.
		if pending := shmPending(path + "-shm"); pending > 0 {
			return fmt.Sprintf("the write-ahead log %s is missing or empty but its index %s-shm records %d committed frames not yet copied into the database: those transactions were lost (the log was deleted or emptied)",
				wal, path, pending), nil
		}
		return "", nil
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
	whole := (size - 32) / frame
	if salt != nil && string(salt) == string(hdr[16:24]) && committed > whole {
		return fmt.Sprintf("the write-ahead log %s holds %d whole frames but %d were committed: it was cut (a truncated copy, a disk error); the transactions in the missing frames were dropped when the database was opened",
			wal, whole, committed), nil
	}
	rem := (size - 32) % frame
	if rem == 0 || rem == walFrameHeader || size%int64(os.Getpagesize()) == 0 {
		return "", nil
	}
	time.Sleep(50 * time.Millisecond)
	if again, err := walSize(wal); err != nil || again != size {
		return "", err // a live writer is appending
	}
	return fmt.Sprintf("the write-ahead log %s ends %d bytes into a frame after %d whole frames: it was cut (a truncated copy, a disk error); transactions after its last whole commit were dropped when the database was opened",
		wal, rem, whole), nil
}

// shmCommitted reads the number of committed frames (mxFrame) and the
// salts of the log they belong to from a WAL shared-memory index; 0, nil
// when there is none or its header is not trustworthy. The header
// (SQLite's WalIndexHdr, native byte order) is kept twice, in bytes 0..47
// and 48..95; a writer updates them one after the other, so they agree
// when the index is settled.
func shmCommitted(shm string) (int64, []byte) {
	f, err := os.Open(shm)
	if err != nil {
		return 0, nil
	}
	defer f.Close()
	b := make([]byte, 96)
	if _, err := io.ReadFull(f, b); err != nil {
		return 0, nil
	}
	if string(b[:48]) != string(b[48:96]) || b[12] != 1 { // isInit
		return 0, nil
	}
	return int64(binary.NativeEndian.Uint32(b[16:])), b[32:40]
}

// shmPending is the number of committed frames (mxFrame) a settled WAL
// index records beyond those already copied into the database (the
// checkpoint's nBackfill, the first field after the two header copies);
// 0 when there is no trustworthy index.
func shmPending(shm string) int64 {
	committed, salt := shmCommitted(shm)
	if salt == nil || committed == 0 {
		return 0
	}
	f, err := os.Open(shm)
	if err != nil {
		return 0
	}
	defer f.Close()
	b := make([]byte, 4)
	if _, err := f.ReadAt(b, 96); err != nil {
		return 0
	}
	backfilled := int64(binary.NativeEndian.Uint32(b))
	if backfilled >= committed {
		return 0
	}
	return committed - backfilled
}

// WALCheck inspects the write-ahead log and its index beside path, as
// [Open] does, without opening the database: "" when the log looks whole
// or is absent with nothing pending, otherwise what is wrong (a log cut
// inside a frame, shorter than its index records, or removed while its
// index still counted commits). verify uses it on files it must not
// touch.
func WALCheck(path string) (string, error) { return walCut(path) }

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
