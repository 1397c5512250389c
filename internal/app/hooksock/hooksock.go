// Package hooksock lets the prompt hook, a new process per prompt, ask a
// holomem process that is already running on the same store (`holomem
// serve`, `holomem mcp`) for its answer, over a Unix socket.
//
// Why: a new process pays for its start (runtime, package initialisation,
// page faults: ~20 ms on a small VM) and then for a cold recall (opening
// the store, parsing its schema, reading every page from the OS, ~20 ms
// more at 100k facts), and with an embedding model it would load the model
// for every prompt. A running server has all of that warm and answers in a
// couple of milliseconds. When no server runs, the hook recalls itself as
// before; the socket is an accelerator, never a dependency.
//
// The socket lives in a directory only the user can enter
// ($XDG_RUNTIME_DIR, else a 0700 directory in the temp directory), named
// by a hash of the store's address, so a hook finds the server of its own
// store and no other user's. One server owns a socket at a time: it holds
// an flock on a lock file beside it, which the kernel releases when the
// process dies, so a killed server's socket is taken over by the next one.
//
// The exchange is one JSON line each way and then a report: the client
// sends a [Request], the server replies with an [Answer], the client
// prints it and sends a [Report] with the outcome it saw (injected, empty,
// or nothing when it gave up), which the server logs for `holomem doctor`.
package hooksock

import (
	"bufio"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"os"
	"path/filepath"
	"strconv"
	"sync"
	"time"
)

// ErrNoServer means no process serves the store's socket: the caller
// recalls itself.
var ErrNoServer = errors.New("no holomem server for this store")

// ErrOwned means another live process already serves the store's socket.
var ErrOwned = errors.New("another holomem process serves this store's hook socket")

// Version is the exchange's version; a server refuses a request of
// another, and the hook then recalls on its own (a hook and a server of
// different holomem builds may meet on one socket).
const Version = 1

// Request is what the hook asks.
type Request struct {
	Version int `json:"version"`
	// Store is the key of the store the hook opened (see [Path]); the
	// server refuses a request for another store.
	Store     string  `json:"store"`
	Namespace string  `json:"namespace"`
	Prompt    string  `json:"prompt"`
	Limit     int     `json:"limit"`
	Budget    int     `json:"budget"`
	MinScore  float64 `json:"min_score"`
}

// Answer is the server's reply: the text to print and how many facts it
// holds, or the error that stopped the recall.
type Answer struct {
	Text  string `json:"text"`
	Hits  int    `json:"hits"`
	Error string `json:"error,omitempty"`
}

// Report is the hook's account of one exchange, for the injection log:
// Outcome is one of holomem's Injection* outcomes and Took the hook's own
// latency, from its start to its output.
type Report struct {
	Outcome string        `json:"outcome"`
	Took    time.Duration `json:"took_ns"`
	Detail  string        `json:"detail,omitempty"`
}

// Handler answers hook requests inside a server.
type Handler interface {
	// Answer recalls for req.
	Answer(ctx context.Context, req Request) Answer
	// Done records how an answered exchange ended: rep is the client's
	// report, or an outcome of "timeout" when the client hung up without
	// one. It is not called after an answer with an error: the client then
	// recalls on its own and records that itself.
	Done(req Request, ans Answer, rep Report)
}

// maxLine bounds a request line: a prompt is cut to holomem.MaxQueryBytes
// by the hook, and JSON escaping at most sextuples it.
const maxLine = 1 << 20

// Key is the identity of a store address for [Path]: an absolute file path
// with symbolic links resolved, so that two spellings of one file meet on
// one socket. Other addresses (a PostgreSQL URL, already without its
// password) are used as they are.
func Key(addr string, isFile bool) string {
	if !isFile {
		return addr
	}
	abs, err := filepath.Abs(addr)
	if err != nil {
		return addr
	}
	if real, err := filepath.EvalSymlinks(abs); err == nil {
		return real
	}
	// The file may not exist yet: resolve its directory.
	if dir, err := filepath.EvalSymlinks(filepath.Dir(abs)); err == nil {
		return filepath.Join(dir, filepath.Base(abs))
	}
	return abs
}

// Path returns the socket path of the store with key, creating its
// private directory when needed. The name is a hash: a store path can be
// longer than a socket address may be (108 bytes).
func Path(key string) (string, error) {
	dir, err := socketDir()
	if err != nil {
		return "", err
	}
	sum := sha256.Sum256([]byte(key))
	return filepath.Join(dir, "hook-"+hex.EncodeToString(sum[:8])+".sock"), nil
}

// socketDir returns the user's private directory for sockets, creating it
// 0700 when needed, and refuses one another user could enter or replace.
func socketDir() (string, error) {
	dir := os.Getenv("XDG_RUNTIME_DIR")
	if dir != "" {
		dir = filepath.Join(dir, "holomem")
	} else {
		dir = filepath.Join(os.TempDir(), "holomem-"+strconv.Itoa(os.Getuid()))
	}
	if err := os.Mkdir(dir, 0o700); err != nil && !errors.Is(err, os.ErrExist) {
		return "", fmt.Errorf("hook socket directory: %w", err)
	}
	if err := checkPrivate(dir); err != nil {
		return "", fmt.Errorf("hook socket directory %s: %w", dir, err)
	}
	return dir, nil
}

// Listen takes the store's socket for this process. It fails with
// [ErrOwned] when another live process holds it. The lock is released,
// and the socket removed, by closing the listener (the lock also goes with
// the process).
func Listen(key string) (net.Listener, error) {
	path, err := Path(key)
	if err != nil {
		return nil, err
	}
	unlock, err := lockOwner(path + ".lock")
	if err != nil {
		return nil, err
	}
	// The lock is ours: a socket file left there is a dead owner's.
	if err := os.Remove(path); err != nil && !errors.Is(err, os.ErrNotExist) {
		unlock()
		return nil, fmt.Errorf("hook socket: %w", err)
	}
	ln, err := net.Listen("unix", path)
	if err != nil {
		unlock()
		return nil, fmt.Errorf("hook socket: %w", err)
	}
	if err := os.Chmod(path, 0o600); err != nil {
		ln.Close()
		unlock()
		return nil, fmt.Errorf("hook socket: %w", err)
	}
	return &ownedListener{Listener: ln, unlock: unlock}, nil
}

// ownedListener releases the owner's lock after the socket is closed (and
// unlinked by the net package).
type ownedListener struct {
	net.Listener
	once   sync.Once
	unlock func()
}

func (l *ownedListener) Close() error {
	err := l.Listener.Close()
	l.once.Do(l.unlock)
	return err
}

// Serve answers requests for the store with key on ln until ctx ends or ln
// fails; it closes ln. Each connection is one exchange, served on its own
// goroutine; the exchanges still running are waited for.
func Serve(ctx context.Context, ln net.Listener, key string, h Handler) error {
	var wg sync.WaitGroup
	defer wg.Wait()
	stop := context.AfterFunc(ctx, func() { ln.Close() })
	defer stop()
	defer ln.Close()
	for {
		c, err := ln.Accept()
		if err != nil {
			if ctx.Err() != nil {
				return nil
			}
			return fmt.Errorf("hook socket: %w", err)
		}
		wg.Go(func() { serveConn(ctx, c, key, h) })
	}
}

// exchangeTimeout bounds one exchange on the server: the hook's own
// deadline is 2 s by default.
const exchangeTimeout = 30 * time.Second

// reportTimeout bounds the wait for the hook's report once it has its
// answer: it sends it as soon as it has printed.
const reportTimeout = 5 * time.Second

func serveConn(ctx context.Context, c net.Conn, key string, h Handler) {
	defer c.Close()
	// A server shutting down does not wait for a hook that is slow to
	// write.
	stop := context.AfterFunc(ctx, func() { c.Close() })
	defer stop()
	_ = c.SetDeadline(time.Now().Add(exchangeTimeout))
	r := bufio.NewReaderSize(c, 4096)
	var req Request
	line, err := readLine(r)
	if err == nil {
		err = json.Unmarshal(line, &req)
	}
	switch {
	case err != nil:
	case req.Version != Version:
		err = fmt.Errorf("exchange version %d, this server speaks %d", req.Version, Version)
	case req.Store != key:
		err = fmt.Errorf("this socket serves another store than %q", req.Store)
	}
	if err != nil {
		_ = writeLine(c, Answer{Error: "bad request: " + err.Error()})
		return
	}
	ctx, cancel := context.WithTimeout(ctx, exchangeTimeout)
	defer cancel()
	ans := h.Answer(ctx, req)
	if err := writeLine(c, ans); err != nil {
		h.Done(req, ans, Report{Outcome: "timeout", Detail: "hook gone before the answer: " + err.Error()})
		return
	}
	if ans.Error != "" {
		// The hook recalls on its own and logs that.
		return
	}
	var rep Report
	_ = c.SetReadDeadline(time.Now().Add(reportTimeout))
	line, err = readLine(r)
	if err == nil {
		err = json.Unmarshal(line, &rep)
	}
	if err != nil {
		rep = Report{Outcome: "timeout", Detail: "hook gave no report: " + err.Error()}
	}
	h.Done(req, ans, rep)
}

// Client is one exchange with a server.
type Client struct {
	c net.Conn
	r *bufio.Reader
}

// Dial connects to the server of the store with key. It returns
// [ErrNoServer] (wrapped) when none listens, at once: the socket file is
// missing or refuses connections.
func Dial(ctx context.Context, key string) (*Client, error) {
	path, err := Path(key)
	if err != nil {
		return nil, fmt.Errorf("%w: %w", ErrNoServer, err)
	}
	var d net.Dialer
	c, err := d.DialContext(ctx, "unix", path)
	if err != nil {
		return nil, fmt.Errorf("%w: %w", ErrNoServer, err)
	}
	return &Client{c: c, r: bufio.NewReaderSize(c, 4096)}, nil
}

// Ask sends req and waits for the answer until ctx ends. An error in the
// answer is returned as an error.
func (cl *Client) Ask(ctx context.Context, req Request) (Answer, error) {
	if dl, ok := ctx.Deadline(); ok {
		_ = cl.c.SetDeadline(dl)
	}
	stop := context.AfterFunc(ctx, func() { _ = cl.c.SetDeadline(time.Unix(1, 0)) })
	defer stop()
	if err := writeLine(cl.c, req); err != nil {
		return Answer{}, fmt.Errorf("hook socket: %w", err)
	}
	line, err := readLine(cl.r)
	if err != nil {
		if ctx.Err() != nil {
			return Answer{}, ctx.Err()
		}
		if errors.Is(err, os.ErrDeadlineExceeded) {
			// The connection's deadline is ctx's, and may fire first.
			return Answer{}, fmt.Errorf("hook socket: %w", context.DeadlineExceeded)
		}
		return Answer{}, fmt.Errorf("hook socket: %w", err)
	}
	var ans Answer
	if err := json.Unmarshal(line, &ans); err != nil {
		return Answer{}, fmt.Errorf("hook socket: bad answer: %w", err)
	}
	if ans.Error != "" {
		return ans, errors.New(ans.Error)
	}
	return ans, nil
}

// Close sends the report (when rep has an outcome) and hangs up. The
// report is a single small write: it does not wait for the server.
func (cl *Client) Close(rep Report) error {
	if rep.Outcome != "" {
		_ = cl.c.SetWriteDeadline(time.Now().Add(time.Second))
		_ = writeLine(cl.c, rep)
	}
	return cl.c.Close()
}

func writeLine(w io.Writer, v any) error {
	b, err := json.Marshal(v)
	if err != nil {
		return err
	}
	_, err = w.Write(append(b, '\n'))
	return err
}

// readLine reads one line of at most maxLine bytes.
func readLine(r *bufio.Reader) ([]byte, error) {
	var line []byte
	for {
		part, isPrefix, err := r.ReadLine()
		if err != nil {
			return nil, err
		}
		line = append(line, part...)
		if len(line) > maxLine {
			return nil, fmt.Errorf("line longer than %d bytes", maxLine)
		}
		if !isPrefix {
			return line, nil
		}
	}
}
