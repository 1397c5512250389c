package mcpserver

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"github.com/holomem/holomem/internal/leaf/jsontext"
	"io"
	"log/slog"
	"net/http"
	"os"
	"strings"
	"sync"
	"time"
	"unicode/utf8"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/holomem/holomem"
)

// Defaults for [Options].
const (
	// DefaultVersion is reported to clients when Options.Version is empty.
	DefaultVersion = "dev"
	// DefaultSessionTimeout closes idle streamable-HTTP sessions.
	DefaultSessionTimeout = 30 * time.Minute
	// DefaultMaxLineBytes bounds one JSON-RPC message on stdio: a fact is at
	// most 256 KiB, and JSON escaping can grow it several times.
	DefaultMaxLineBytes = 8 << 20
	// DefaultToolLimit is the number of hits probe, related and reason return
	// when the call does not say.
	DefaultToolLimit = 10
)

// Options configure a [Server]. The zero value is usable.
type Options struct {
	// Namespace is used by calls that do not name one; "" means
	// holomem.DefaultNamespace.
	Namespace string
	// Grant, when set, limits every tool call to the namespaces it covers
	// (and to reading, without its Write right); calls outside it fail
	// with ErrForbidden. A server shared by tenants runs one Server per
	// grant (see web.Options.MCPFor). Nil allows everything.
	Grant *holomem.Grant
	// Version is the holomem version reported in the initialize handshake;
	// "" means DefaultVersion.
	Version string
	// Logger receives internal errors (never shown to clients); nil means
	// slog.Default(). On stdio it must not write to stdout.
	Logger *slog.Logger
	// SessionTimeout closes idle streamable-HTTP sessions; 0 means
	// DefaultSessionTimeout, a negative value keeps them forever.
	SessionTimeout time.Duration
	// MaxLineBytes bounds one message on stdio and one request body over
	// HTTP, in bytes; 0 means DefaultMaxLineBytes.
	MaxLineBytes int
}

// Reader is the part of the store the server reads directly: plain reads
// that need no memory logic. Every write goes through the memory, where
// the rules are (a holomem.Store satisfies Reader).
type Reader interface {
	FindFactByID(ctx context.Context, id int64) (*holomem.Fact, error)
	FindFacts(ctx context.Context, filter holomem.FactFilter) ([]*holomem.Fact, int, error)
	FindEdges(ctx context.Context, filter holomem.EdgeFilter) ([]*holomem.Edge, error)
	Stats(ctx context.Context, namespace string) (*holomem.Stats, error)
}

// Server exposes a [holomem.Memory] as MCP tools. It is safe for concurrent
// use: one Server serves any number of stdio and HTTP sessions, and all
// state lives in the memory and the store.
type Server struct {
	mem   holomem.Memory
	store Reader
	opts  Options
	log   *slog.Logger
	srv   *mcp.Server
	// envelope is the tokens the SDK adds to each tool result.
	envelope int
}

// instructions tell a connecting agent when to use the tools.
const instructions = `holomem is your long-term memory. At the start of a task, call recall with the task in your own words. ` +
	`When you learn something worth keeping (a user preference, a project convention, a decision and its reason, a fix), call remember with one short self-contained fact. ` +
	`If remember reports contradictions, decide which fact is current and call supersede. ` +
	`After using a recalled fact, call feedback with helpful=true or false so trust follows usefulness. ` +
	`Ids are integers returned by remember and recall.`

// New returns a Server over mem (which answers every tool) and store
// (used for reads the memory does not cover: get, edges and status).
func New(mem holomem.Memory, store Reader, opts Options) *Server {
	if strings.TrimSpace(opts.Namespace) == "" {
		opts.Namespace = holomem.DefaultNamespace
	}
	if opts.Version == "" {
		opts.Version = DefaultVersion
	}
	if opts.SessionTimeout == 0 {
		opts.SessionTimeout = DefaultSessionTimeout
	}
	if opts.MaxLineBytes <= 0 {
		opts.MaxLineBytes = DefaultMaxLineBytes
	}
	s := &Server{mem: mem, store: store, opts: opts, log: opts.Logger, envelope: envelopeTokens(opts.Version)}
	if s.log == nil {
		s.log = slog.Default()
	}
	s.srv = mcp.NewServer(&mcp.Implementation{Name: "holomem", Title: "holomem memory", Version: opts.Version},
		&mcp.ServerOptions{Instructions: instructions, Capabilities: &mcp.ServerCapabilities{}})
	s.addTools()
	return s
}

// MCP returns the underlying SDK server, for callers that bring their own
// transport (for example mcp.NewInMemoryTransports in tests and benchmarks).
func (s *Server) MCP() *mcp.Server { return s.srv }

// ServeStdio serves one session on os.Stdin and os.Stdout until the client
// closes stdin or ctx is done (both return nil). Logs must go elsewhere
// (stderr): stdout carries only protocol messages.
func (s *Server) ServeStdio(ctx context.Context) error {
	return s.Serve(ctx, os.Stdin, os.Stdout)
}

// Serve serves one session of newline-delimited JSON-RPC read from r and
// written to w, until r ends or ctx is done; both are a normal end and
// return nil.
//
// Lines that are not JSON-RPC messages are answered with a JSON-RPC error
// and skipped, so a confused client does not end the session (the SDK's own
// reader stops at the first bad message). Batches (JSON arrays) are refused
// the same way: current MCP versions do not allow them.
//
// The goroutine reading r stops when r ends; a reader that never ends (a
// terminal) keeps it blocked in Read after Serve returns, which is harmless
// for a process that exits afterwards.
func (s *Server) Serve(ctx context.Context, r io.Reader, w io.Writer) error {
	tr := newInflight()
	out := &lockedWriter{w: w, tr: tr}
	pr, pw := io.Pipe()
	go guardLines(r, pw, out, s.opts.MaxLineBytes, tr)
	t := &mcp.IOTransport{Reader: pr, Writer: nopCloser{out}, MaxLineLength: -1}
	// A session ended by ctx (or an error) answers nothing more: release
	// the end of input's wait for answers.
	stop := context.AfterFunc(ctx, tr.release)
	defer stop()
	err := s.srv.Run(ctx, t)
	tr.release()
	pr.Close()
	if errors.Is(err, io.EOF) || errors.Is(err, io.ErrClosedPipe) || (ctx.Err() != nil && errors.Is(err, ctx.Err())) {
		return nil
	}
	return err
}

// Handler returns the streamable-HTTP handler (mount it at /mcp). It adds no
// authentication: the caller wraps it (package web does).
func (s *Server) Handler() http.Handler {
	timeout := s.opts.SessionTimeout
	if timeout < 0 {
		timeout = 0
	}
	h := mcp.NewStreamableHTTPHandler(func(*http.Request) *mcp.Server { return s.srv },
		&mcp.StreamableHTTPOptions{
			SessionTimeout:      timeout,
			MaxRequestBodyBytes: int64(s.opts.MaxLineBytes),
		})
	return utf8Bodies(h, int64(s.opts.MaxLineBytes))
}

// utf8Bodies refuses POST bodies that are not valid UTF-8 (encoding/json
// would silently store U+FFFD in their place), as the stdio guard does.
func utf8Bodies(h http.Handler, limit int64) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Method != http.MethodPost || r.Body == nil {
			h.ServeHTTP(w, r)
			return
		}
		b, err := io.ReadAll(io.LimitReader(r.Body, limit+1))
		if err != nil {
			http.Error(w, "read body: "+err.Error(), http.StatusBadRequest)
			return
		}
		if !utf8.Valid(b) {
			w.Header().Set("Content-Type", "application/json")
			w.WriteHeader(http.StatusBadRequest)
			writeRPCError(w, messageID(bytes.ToValidUTF8(b, nil)), jsonrpc.CodeParseError, "parse error: the body is not valid UTF-8")
			return
		}
		if at, lone := jsontext.LoneSurrogate(b); lone {
			w.Header().Set("Content-Type", "application/json")
			w.WriteHeader(http.StatusBadRequest)
			writeRPCError(w, messageID(b), jsonrpc.CodeParseError, fmt.Sprintf("parse error: invalid \\u escape at byte %d: half of a UTF-16 surrogate pair is no character", at))
			return
		}
		r.Body = io.NopCloser(bytes.NewReader(b))
		h.ServeHTTP(w, r)
	})
}

// namespace returns the namespace a call asked for, or the default.
func (s *Server) namespace(ns string) string {
	if ns = strings.TrimSpace(ns); ns != "" {
		return ns
	}
	return s.opts.Namespace
}

// factIn loads a fact and checks it lives in namespace ns; a fact of another
// namespace is reported as not found so nothing leaks across namespaces.
func (s *Server) factIn(ctx context.Context, ns string, id int64) (*holomem.Fact, error) {
	if id <= 0 {
		return nil, fmt.Errorf("%w: id must be a positive integer (got %d)", holomem.ErrInvalid, id)
	}
	f, err := s.store.FindFactByID(ctx, id)
	if err != nil {
		return nil, err // the store's error names the id
	}
	if f.Namespace != ns {
		return nil, fmt.Errorf("fact %d in namespace %q: %w", id, ns, holomem.ErrNotFound)
	}
	return f, nil
}

// errorCodes maps domain sentinels to what a model reads in a failed tool
// call. This is the only place errors are translated for MCP clients;
// anything not listed is an internal error, logged and never shown.
var errorCodes = []struct {
	err  error
	code string
	hint string
}{
	{holomem.ErrNotFound, "not_found", "Check the id or name; recall finds ids."},
	{holomem.ErrInvalid, "invalid_argument", "Fix the argument and call again."},
	{holomem.ErrConflict, "conflict", "Another fact already holds this content or key: update or supersede that one instead."},
	{holomem.ErrNoEmbedder, "no_embedding_model", "Semantic search is off: recall without it, or ask the user to run `holomem model pull`."},
	{holomem.ErrSchema, "unsupported_database", "The database needs a newer holomem."},
	{holomem.ErrStorageFull, "storage_full", "Nothing was stored; recall still works. Tell the user the disk holding the memory is full (or read-only)."},
	{holomem.ErrStoreMoved, "store_moved", "Nothing was stored. Tell the user the memory's database file was deleted or replaced while holomem ran, and that holomem must be restarted."},
	{holomem.ErrUnavailable, "unavailable", "The memory's database is unreachable for now; nothing was done. Try again in a few seconds."},
	{holomem.ErrForbidden, "forbidden", "This connection may not use that namespace (or may only read it): omit namespace to use your own."},
	{context.DeadlineExceeded, "timeout", "Try again with a smaller limit."},
	{context.Canceled, "canceled", "The call was canceled."},
}

// toolError turns err into the error a failed tool call reports. The SDK
// puts its text in an IsError result.
func (s *Server) toolError(tool string, err error) error {
	for _, c := range errorCodes {
		if errors.Is(err, c.err) {
			return fmt.Errorf("%s: %s. %s", c.code, strings.ReplaceAll(err.Error(), "holomem: ", ""), c.hint)
		}
	}
	s.log.Error("mcp tool failed", "tool", tool, "err", err)
	return errors.New("internal: internal error (logged on the server); try again later")
}

// tool adapts a domain function to an SDK handler: input in, output out,
// domain errors mapped by toolError.
func tool[In, Out any](s *Server, name string, fn func(ctx context.Context, in In) (Out, error)) mcp.ToolHandlerFor[In, Out] {
	return func(ctx context.Context, _ *mcp.CallToolRequest, in In) (*mcp.CallToolResult, Out, error) {
		out, err := fn(ctx, in)
		if err != nil {
			var zero Out
			return nil, zero, s.toolError(name, err)
		}
		return nil, out, nil
	}
}

// lockedWriter serialises writes so error replies from the line guard never
// interleave with the SDK's messages.
type lockedWriter struct {
	mu sync.Mutex
	w  io.Writer
	tr *inflight // counts the answers written (nil: none)
}

func (l *lockedWriter) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	n, err := l.w.Write(p)
	l.tr.wrote(p[:n])
	return n, err
}

type nopCloser struct{ io.Writer }

func (nopCloser) Close() error { return nil }
