package web

import (
	"bytes"
	"context"
	"crypto/sha256"
	"crypto/subtle"
	"encoding/json"
	"errors"
	"fmt"
	"github.com/holomem/holomem/internal/leaf/jsontext"
	"io"
	"log/slog"
	"net"
	"net/http"
	"net/netip"
	"net/url"
	"path"
	"reflect"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/holomem/holomem"
)

// Defaults for [Options].
const (
	// DefaultMaxBodyBytes bounds request bodies: 1 MiB holds the largest fact
	// (256 KiB) with room for JSON escaping.
	DefaultMaxBodyBytes = 1 << 20
	// DefaultListLimit is the page size of GET /api/facts without ?limit.
	DefaultListLimit = 50
	// DefaultResultLimit is the number of hits probe, related and reason
	// return without ?limit.
	DefaultResultLimit = 10
	// NamespaceHeader selects the namespace of a request when neither the
	// body nor ?namespace= names one.
	NamespaceHeader = "X-Holomem-Namespace"
)

// Options configure a [Server]. The zero value serves the default namespace
// without authentication.
type Options struct {
	// Token, when set, is required as "Authorization: Bearer <token>" (or
	// the UI's session cookie) on every path, /mcp included, except a bare
	// /healthz probe (it answers "ok" without detail), /login and the two
	// assets the login page links (/static/style.css, /static/htmx.min.js).
	// /login refuses a client address for a minute after 5 wrong tokens.
	Token string
	// TrustedProxies are the addresses (or CIDR prefixes) of reverse
	// proxies whose X-Forwarded-Proto and X-Forwarded-For are believed:
	// cookies are marked Secure when the proxy says the browser used
	// https, and /login throttles by the forwarded client address.
	TrustedProxies []string
	// MaxBodyBytes bounds request bodies in bytes; larger ones get 413.
	// 0 means DefaultMaxBodyBytes.
	MaxBodyBytes int64
	// Namespace is used by requests that name none; "" means
	// holomem.DefaultNamespace.
	Namespace string
	// MCP, when set, is served at /mcp (and below) behind the same token
	// check; mcpserver.Server.Handler provides it.
	MCP http.Handler
	// Grants are scoped client tokens (tenants): each reads, and with its
	// Write right changes, only its namespaces, on the API and over MCP;
	// the web UI stays the server token's. They need Token to be set.
	Grants []TokenGrant
	// MCPFor makes the MCP handler of a scoped token: an mcpserver.Server
	// with that grant (mcpserver.Options.Grant). Without it, scoped tokens
	// get no MCP.
	MCPFor func(g *holomem.Grant) http.Handler
	// Logger receives internal errors, which clients never see; nil means
	// slog.Default().
	Logger *slog.Logger
	// Version is reported by /healthz; "" leaves it out.
	Version string
	// Status computes the doctor findings the status page shows; nil
	// shows the store's counts and the live channels only.
	Status StatusFunc
	// Health, when set, is asked by /healthz: an error (the database file
	// deleted or replaced under the server, the database server down)
	// answers 503 with its message.
	Health func(ctx context.Context) error
	// Import runs an uploaded file's import; nil disables the import page.
	Import ImportFunc
	// ImportMaxBytes bounds an uploaded file; 0 means DefaultImportMaxBytes.
	ImportMaxBytes int64
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

// Server is the HTTP JSON API over a [holomem.Memory] and its
// [holomem.Store]. It is an http.Handler, safe for concurrent use, and
// holds no state of its own.
type Server struct {
	mem   holomem.Memory
	store Reader
	opts  Options
	log   *slog.Logger
	mux   *http.ServeMux
	// guarded is the router behind cross-origin (CSRF) protection.
	guarded http.Handler
	// ui is the HTML pages' state.
	ui *ui
	// tokenSum is the SHA-256 of Options.Token; comparing digests takes the
	// same time whatever the length of the presented token.
	tokenSum [sha256.Size]byte
	// proxies are Options.TrustedProxies parsed; logins throttles /login.
	proxies []netip.Prefix
	logins  *loginLimiter
	// tenants are Options.Grants.
	tenants *tenants
}

// NewServer returns the API handler. mem answers every memory operation;
// store serves plain reads (listing, edges, stats) and edge writes.
func NewServer(mem holomem.Memory, store Reader, opts Options) *Server {
	if opts.MaxBodyBytes <= 0 {
		opts.MaxBodyBytes = DefaultMaxBodyBytes
	}
	if strings.TrimSpace(opts.Namespace) == "" {
		opts.Namespace = holomem.DefaultNamespace
	}
	s := &Server{mem: mem, store: store, opts: opts, log: opts.Logger, mux: http.NewServeMux()}
	if s.log == nil {
		s.log = slog.Default()
	}
	s.tokenSum = sha256.Sum256([]byte(opts.Token))
	s.tenants = newTenants(opts.Grants)
	s.logins = newLoginLimiter()
	// A bad entry is refused by ValidateOptions at start; here it is
	// left out (no proxy is trusted by mistake).
	s.proxies, _ = parseProxies(opts.TrustedProxies)
	s.ui = newUI(opts.Token)
	s.routes()
	s.uiRoutes()
	cop := http.NewCrossOriginProtection()
	cop.SetDenyHandler(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		s.writeError(w, r, fmt.Errorf("%w: cross-origin %s refused", errForbidden, r.Method))
	}))
	s.guarded = cop.Handler(http.HandlerFunc(s.route))
	return s
}

func (s *Server) routes() {
	m := s.mux
	m.HandleFunc("GET /healthz", s.handleHealth)

	m.Handle("POST /api/facts", s.auth(s.handleCreateFact))
	m.Handle("GET /api/facts", s.auth(s.handleListFacts))
	m.Handle("GET /api/facts/{id}", s.auth(s.handleGetFact))
	m.Handle("PATCH /api/facts/{id}", s.auth(s.handleUpdateFact))
	m.Handle("DELETE /api/facts/{id}", s.auth(s.handleDeleteFact))
	m.Handle("POST /api/facts/{id}/feedback", s.auth(s.handleFeedback))
	m.Handle("GET /api/facts/{id}/edges", s.auth(s.handleFactEdges))
	m.Handle("POST /api/supersede", s.auth(s.handleSupersede))

	m.Handle("POST /api/recall", s.auth(s.handleRecallPost))
	m.Handle("GET /api/recall", s.auth(s.handleRecallGet))
	m.Handle("GET /api/probe", s.auth(s.handleProbe))
	m.Handle("GET /api/related", s.auth(s.handleRelated))
	m.Handle("GET /api/reason", s.auth(s.handleReason))

	m.Handle("POST /api/edges", s.auth(s.handleCreateEdge))
	m.Handle("DELETE /api/edges", s.auth(s.handleDeleteEdge))

	m.Handle("GET /api/stats", s.auth(s.handleStats))

	if s.opts.MCP != nil {
		m.Handle("/mcp", s.mcpHandler())
		m.Handle("/mcp/", s.mcpHandler())
	}
}

// ServeHTTP checks the request's origin and routes it.
//
// Two browser attacks are refused with 403 before routing, because the
// default bind is an unauthenticated loopback port: a page on another site
// posting to the API (cross-origin writes are rejected by
// http.CrossOriginProtection), and DNS rebinding (a request that arrived on
// a loopback address must name a loopback host).
//
// A path that is not clean ("/api//recall", "/api/../x") gets a 404 here:
// the mux would answer it with a redirect before the token check.
func (s *Server) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	if p := r.URL.Path; p == "" || p[0] != '/' || (path.Clean(p) != p && path.Clean(p)+"/" != p) {
		closeIfBody(w, r)
		writeJSON(w, http.StatusNotFound, errorBody{Error: fmt.Sprintf("no endpoint %s %q", r.Method, p), Code: "not_found"})
		return
	}
	if (r.Method == http.MethodGet || r.Method == http.MethodHead) && apiPath(r.URL.Path) && crossOrigin(r) {
		s.writeError(w, r, fmt.Errorf("%w: cross-origin %s of the API refused", errForbidden, r.Method))
		return
	}
	if local, ok := r.Context().Value(http.LocalAddrContextKey).(net.Addr); ok && local != nil {
		if isLoopbackAddr(local.String()) && !isLoopbackAddr(r.Host) {
			s.writeError(w, r, fmt.Errorf("%w: host %q is not a loopback name", errForbidden, r.Host))
			return
		}
	}
	s.guarded.ServeHTTP(w, r)
}

// apiPath reports whether p is served to programs (the JSON API and MCP)
// rather than to a browser navigating (the UI's pages).
func apiPath(p string) bool {
	return strings.HasPrefix(p, "/api/") || p == "/mcp" || strings.HasPrefix(p, "/mcp/")
}

// crossOrigin applies http.CrossOriginProtection's rule to any method: a
// browser's Sec-Fetch-Site other than same-origin or none (a user typing
// the URL), or, from browsers that do not send it, an Origin whose host is
// not the request's. A request with neither header is not from a browser
// page and passes. CrossOriginProtection lets GET through by design (safe
// methods); the API's GETs are not side-effect free for this server's
// owner (a recall counts retrievals, and its answer is the memory), and a
// page on another site has no business reading it, so they get the same
// rule. The UI's pages stay reachable by a cross-site link.
func crossOrigin(r *http.Request) bool {
	switch r.Header.Get("Sec-Fetch-Site") {
	case "":
	case "same-origin", "none":
		return false
	default:
		return true
	}
	origin := r.Header.Get("Origin")
	if origin == "" {
		return false
	}
	u, err := url.Parse(origin)
	return err != nil || u.Host != r.Host
}

// route serves a request. Requests no route matches get the mux's status
// (404, or 405 with Allow) as a JSON error like every other.
func (s *Server) route(w http.ResponseWriter, r *http.Request) {
	// Handler does not fill r's path values, so a match is served by the
	// mux itself; only the fallback answer goes through h.
	h, pattern := s.mux.Handler(r)
	if pattern != "" {
		s.mux.ServeHTTP(w, r)
		return
	}
	rec := &statusRecorder{header: http.Header{}}
	h.ServeHTTP(rec, r)
	if allow := rec.header.Get("Allow"); allow != "" {
		w.Header().Set("Allow", allow)
	}
	status := rec.status
	if status == 0 || status == http.StatusOK {
		status = http.StatusNotFound
	}
	code := "not_found"
	if status == http.StatusMethodNotAllowed {
		code = "method_not_allowed"
	}
	writeJSON(w, status, errorBody{Error: fmt.Sprintf("no endpoint %s %s", r.Method, r.URL.Path), Code: code})
}

// statusRecorder captures the status and headers the mux writes for a
// request no route matched.
type statusRecorder struct {
	header http.Header
	status int
}

func (r *statusRecorder) Header() http.Header         { return r.header }
func (r *statusRecorder) Write(p []byte) (int, error) { return len(p), nil }
func (r *statusRecorder) WriteHeader(status int)      { r.status = status }

// apiFunc is an endpoint: it writes its response or returns an error that
// writeError turns into one.
type apiFunc func(w http.ResponseWriter, r *http.Request) error

// auth wraps an endpoint with the token check and error mapping.
func (s *Server) auth(fn apiFunc) http.Handler {
	return s.authHandler(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if err := fn(w, r); err != nil {
			s.writeError(w, r, err)
		}
	}))
}

// authHandler requires the bearer token when one is configured.
func (s *Server) authHandler(h http.Handler) http.Handler {
	if s.opts.Token == "" {
		return h
	}
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		g, ok := s.presented(r)
		if !ok {
			closeIfBody(w, r)
			w.Header().Set("WWW-Authenticate", `Bearer realm="holomem"`)
			s.writeError(w, r, errUnauthorized)
			return
		}
		h.ServeHTTP(w, r.WithContext(withRequest(r.Context(), r, g)))
	})
}

// presented checks the request's bearer token: the server token (grant
// nil: every right) or a scoped one (its grant).
func (s *Server) presented(r *http.Request) (*holomem.Grant, bool) {
	tok, ok := bearerToken(r.Header.Get("Authorization"))
	if !ok {
		return nil, false
	}
	sum := sha256.Sum256([]byte(tok))
	if subtle.ConstantTimeCompare(sum[:], s.tokenSum[:]) == 1 {
		return nil, true
	}
	g := s.tenants.grantOf(sum)
	return g, g != nil
}

// mcpHandler serves /mcp: the server's MCP for the server token, a scoped
// token's own (made by Options.MCPFor) for a tenant.
func (s *Server) mcpHandler() http.Handler {
	return s.authHandler(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		g := holomem.GrantFrom(r.Context())
		if g == nil {
			s.opts.MCP.ServeHTTP(w, r)
			return
		}
		if s.opts.MCPFor == nil {
			s.writeError(w, r, fmt.Errorf("%w: MCP is not served to scoped tokens here", holomem.ErrForbidden))
			return
		}
		s.tenants.mcpFor(g, s.opts.MCPFor).ServeHTTP(w, r)
	}))
}

// closeIfBody makes a refusal close the connection when the request has a
// body the handler will not read: otherwise net/http drains up to 256 KiB
// of it before sending the answer, and a client that announced a body and
// never sends it holds the 401 back until the read timeout.
func closeIfBody(w http.ResponseWriter, r *http.Request) {
	if r.ContentLength != 0 {
		w.Header().Set("Connection", "close")
	}
}

// bearerToken extracts the token of an "Authorization: Bearer" header.
func bearerToken(h string) (string, bool) {
	const prefix = "bearer "
	if len(h) < len(prefix) || !strings.EqualFold(h[:len(prefix)], prefix) {
		return "", false
	}
	tok := strings.TrimSpace(h[len(prefix):])
	return tok, tok != ""
}

// healthErr asks Options.Health, when set.
func (s *Server) healthErr(r *http.Request) error {
	if s.opts.Health == nil {
		return nil
	}
	return s.opts.Health(r.Context())
}

func (s *Server) handleHealth(w http.ResponseWriter, r *http.Request) {
	if s.opts.Token != "" && !s.uiAuthorized(r) {
		// The bare probe: up or not, no version, no detail.
		w.Header().Set("Content-Type", "text/plain; charset=utf-8")
		w.Header().Set("Cache-Control", "no-store")
		if err := s.healthErr(r); err != nil {
			retryAfter(w, err)
			w.WriteHeader(http.StatusServiceUnavailable)
			fmt.Fprintln(w, "unavailable")
			return
		}
		fmt.Fprintln(w, "ok")
		return
	}
	h := map[string]string{"status": "ok"}
	if s.opts.Version != "" {
		h["version"] = s.opts.Version
	}
	if s.opts.Health != nil {
		if err := s.opts.Health(r.Context()); err != nil {
			retryAfter(w, err)
			h["status"], h["error"] = "error", strings.ReplaceAll(err.Error(), "holomem: ", "")
			writeJSON(w, http.StatusServiceUnavailable, h)
			return
		}
	}
	writeJSON(w, http.StatusOK, h)
}

// Transport errors that are not domain errors.
var (
	errUnauthorized = errors.New("missing or wrong bearer token")
	errTooLarge     = errors.New("request body too large")
	errBadRequest   = errors.New("bad request")
	errForbidden    = errors.New("forbidden")
)

// errorCodes maps errors to HTTP statuses and stable codes. This is the
// only place errors become statuses; an error matching none is a 500 whose
// detail is logged and never sent.
var errorCodes = []struct {
	err    error
	status int
	code   string
}{
	{holomem.ErrNotFound, http.StatusNotFound, "not_found"},
	{holomem.ErrInvalid, http.StatusBadRequest, "invalid"},
	{holomem.ErrConflict, http.StatusConflict, "conflict"},
	{holomem.ErrNoEmbedder, http.StatusServiceUnavailable, "no_embedder"},
	{holomem.ErrStorageFull, http.StatusInsufficientStorage, "storage_full"},
	{holomem.ErrStoreMoved, http.StatusServiceUnavailable, "store_moved"},
	{holomem.ErrUnavailable, http.StatusServiceUnavailable, "unavailable"},
	{holomem.ErrForbidden, http.StatusForbidden, "forbidden"},
	{errBadRequest, http.StatusBadRequest, "bad_request"},
	{errTooLarge, http.StatusRequestEntityTooLarge, "too_large"},
	{errUnauthorized, http.StatusUnauthorized, "unauthorized"},
	{errTooManyAttempts, http.StatusTooManyRequests, "too_many_requests"},
	{errForbidden, http.StatusForbidden, "forbidden"},
	{context.DeadlineExceeded, http.StatusGatewayTimeout, "timeout"},
}

// errorBody is the JSON of every error response.
type errorBody struct {
	Error string `json:"error"`
	Code  string `json:"code"`
}

// writeError answers with the status and code errorCodes gives err.
func (s *Server) writeError(w http.ResponseWriter, r *http.Request, err error) {
	for _, c := range errorCodes {
		if errors.Is(err, c.err) {
			retryAfter(w, err)
			writeJSON(w, c.status, errorBody{Error: strings.ReplaceAll(err.Error(), "holomem: ", ""), Code: c.code})
			return
		}
	}
	if errors.Is(err, context.Canceled) && r.Context().Err() != nil {
		return // the client left; nobody reads the answer
	}
	s.log.Error("http api", "method", r.Method, "path", r.URL.Path, "err", err)
	writeJSON(w, http.StatusInternalServerError, errorBody{Error: "internal error", Code: "internal"})
}

// retryAfterSeconds is the wait a 503 for an unreachable database asks
// for: about what a PostgreSQL restart or a standby's promotion takes.
const retryAfterSeconds = "5"

// retryAfter sets Retry-After when err says the database is unreachable
// for now, so clients and proxies retry instead of giving up.
func retryAfter(w http.ResponseWriter, err error) {
	if errors.Is(err, holomem.ErrUnavailable) {
		w.Header().Set("Retry-After", retryAfterSeconds)
	}
}

// writeJSON writes v as the JSON response body with status.
func writeJSON(w http.ResponseWriter, status int, v any) {
	w.Header().Set("Content-Type", "application/json; charset=utf-8")
	w.Header().Set("X-Content-Type-Options", "nosniff")
	w.WriteHeader(status)
	enc := json.NewEncoder(w)
	enc.Encode(v) //nolint:errcheck // the status is sent; a failed write means the client left
}

// decodeJSON reads the body into v: at most MaxBodyBytes, one JSON value,
// no unknown fields.
func (s *Server) decodeJSON(w http.ResponseWriter, r *http.Request, v any) error {
	b, err := io.ReadAll(http.MaxBytesReader(w, r.Body, s.opts.MaxBodyBytes))
	if err != nil {
		return jsonError(err, s.opts.MaxBodyBytes)
	}
	// encoding/json turns invalid UTF-8 into U+FFFD without a word: the
	// stored fact would differ from what the client sent.
	if !utf8.Valid(b) {
		return fmt.Errorf("%w: the body is not valid UTF-8", errBadRequest)
	}
	// It does the same to half a UTF-16 surrogate pair ("\ud800").
	if at, lone := jsontext.LoneSurrogate(b); lone {
		return fmt.Errorf("%w: invalid \\u escape at byte %d: half of a UTF-16 surrogate pair is no character", errBadRequest, at)
	}
	dec := json.NewDecoder(bytes.NewReader(b))
	dec.DisallowUnknownFields()
	if err := dec.Decode(v); err != nil {
		return jsonError(err, s.opts.MaxBodyBytes)
	}
	if _, err := dec.Token(); !errors.Is(err, io.EOF) {
		if err != nil {
			return jsonError(err, s.opts.MaxBodyBytes)
		}
		return fmt.Errorf("%w: the body holds more than one JSON value", errBadRequest)
	}
	return nil
}

// jsonError explains a decoding failure in terms a client can fix.
func jsonError(err error, limit int64) error {
	var tooBig *http.MaxBytesError
	var syntax *json.SyntaxError
	var typ *json.UnmarshalTypeError
	switch {
	case errors.As(err, &tooBig):
		return fmt.Errorf("%w: the limit is %d bytes", errTooLarge, limit)
	case errors.Is(err, io.EOF):
		return fmt.Errorf("%w: empty body; send a JSON object", errBadRequest)
	case errors.Is(err, io.ErrUnexpectedEOF):
		return fmt.Errorf("%w: the JSON body ends early", errBadRequest)
	case errors.As(err, &syntax):
		return fmt.Errorf("%w: invalid JSON at byte %d: %v", errBadRequest, syntax.Offset, err)
	case errors.As(err, &typ) && typ.Field == "":
		// The whole body has the wrong shape ([...], "x", 5): say what it
		// must be, not the Go type it is decoded into.
		return fmt.Errorf("%w: the body must be a JSON object, not %s", errBadRequest, jsonNoun(typ.Value))
	case errors.As(err, &typ):
		return fmt.Errorf("%w: field %q must be %s, not %s", errBadRequest, typ.Field, jsonKind(typ.Type), jsonNoun(typ.Value))
	case errors.Is(err, holomem.ErrInvalid):
		// A value's own check (an unknown channel in "weights").
		return err
	default:
		// Unknown fields ("json: unknown field \"x\"") and the like.
		return fmt.Errorf("%w: %s", errBadRequest, strings.TrimPrefix(err.Error(), "json: "))
	}
}

// jsonKind names the JSON a Go type decodes from, for a client: "an
// object", never "web.FactRequest".
func jsonKind(t reflect.Type) string {
	for t.Kind() == reflect.Pointer {
		t = t.Elem()
	}
	switch t.Kind() {
	case reflect.Struct, reflect.Map:
		return "an object"
	case reflect.Slice, reflect.Array:
		return "an array"
	case reflect.String:
		return "a string"
	case reflect.Bool:
		return "true or false"
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64,
		reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64:
		return "an integer"
	case reflect.Float32, reflect.Float64:
		return "a number"
	}
	return "another JSON value"
}

// jsonNoun is the JSON value kind encoding/json reports ("array",
// "number 5") with an article.
func jsonNoun(v string) string {
	if v == "" {
		return "that"
	}
	if strings.IndexByte("aeiou", v[0]) >= 0 {
		return "an " + v
	}
	return "a " + v
}

// namespace picks a request's namespace: the body's (when the endpoint has
// one), else ?namespace=, else the X-Holomem-Namespace header, else the
// server's default.
func (s *Server) namespace(r *http.Request, body string) string {
	for _, ns := range []string{body, r.URL.Query().Get("namespace"), r.Header.Get(NamespaceHeader)} {
		if ns = strings.TrimSpace(ns); ns != "" {
			return ns
		}
	}
	// A scoped token's default is its own namespace.
	if g := holomem.GrantFrom(r.Context()); g != nil && !g.CanRead(s.opts.Namespace) && g.Namespaces[0] != "*" {
		return g.Namespaces[0]
	}
	return s.opts.Namespace
}

// factIn loads a fact and checks that it lives in namespace ns; a fact of
// another namespace is not found, so nothing leaks across namespaces.
func (s *Server) factIn(ctx context.Context, ns string, id int64) (*holomem.Fact, error) {
	if err := allowNS(ctx, ns); err != nil {
		return nil, err
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

// pathID parses the {id} path segment.
func pathID(r *http.Request) (int64, error) {
	return parseID("id", r.PathValue("id"))
}

func parseID(name, v string) (int64, error) {
	id, err := strconv.ParseInt(v, 10, 64)
	if err != nil || id <= 0 {
		return 0, fmt.Errorf("%w: %s %q is not a positive integer", holomem.ErrInvalid, name, v)
	}
	return id, nil
}

// queryInt parses an optional integer parameter; def when absent.
func queryInt(r *http.Request, name string, def int) (int, error) {
	v := r.URL.Query().Get(name)
	if v == "" {
		return def, nil
	}
	n, err := strconv.Atoi(v)
	if err != nil || n < 0 {
		return 0, fmt.Errorf("%w: %s %q is not a non-negative integer", holomem.ErrInvalid, name, v)
	}
	return n, nil
}

// queryBool parses an optional boolean parameter (1, true, yes, ...).
func queryBool(r *http.Request, name string) (bool, error) {
	v := r.URL.Query().Get(name)
	if v == "" {
		return false, nil
	}
	switch strings.ToLower(v) {
	case "1", "t", "true", "yes", "on":
		return true, nil
	case "0", "f", "false", "no", "off":
		return false, nil
	}
	return false, fmt.Errorf("%w: %s %q is not a boolean", holomem.ErrInvalid, name, v)
}

// slim returns f without its vectors: clients have no use for them and a
// 384-float embedding is most of a response.
func slim(f *holomem.Fact) *holomem.Fact {
	if f == nil || (len(f.Embedding) == 0 && f.HRR == nil) {
		return f
	}
	c := *f
	c.Embedding = nil
	c.HRR = nil
	return &c
}

func slimHits(hs []holomem.Hit) []holomem.Hit {
	if hs == nil {
		return []holomem.Hit{}
	}
	for i := range hs {
		hs[i].Fact = slim(hs[i].Fact)
	}
	return hs
}
