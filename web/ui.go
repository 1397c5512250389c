package web

import (
	"bytes"
	"context"
	"crypto/hmac"
	"crypto/rand"
	"crypto/sha256"
	"crypto/subtle"
	"embed"
	"encoding/hex"
	"errors"
	"fmt"
	"hash/fnv"
	"html/template"
	"io/fs"
	"mime/multipart"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/holomem/holomem"
)

// The htmx script is fetched by gen_htmx.sh (npm package htmx.org, pinned,
// SHA-256 checked) and committed, so builds need neither npm nor a network.
//
//go:generate bash gen_htmx.sh

//go:embed assets templates
var uiFiles embed.FS

// Security headers of every page. The policy allows scripts and styles
// from this server only: no inline script, no inline style attribute, no
// eval; htmx is configured (meta htmx-config) not to need any of them.
const (
	contentSecurityPolicy = "default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self' data:; " +
		"connect-src 'self'; form-action 'self'; frame-ancestors 'none'; base-uri 'none'"
	csrfCookie    = "holomem_csrf"
	sessionCookie = "holomem_session"
	csrfField     = "csrf"
)

// ui holds what the pages need beyond the API: parsed templates, the
// per-process secret that signs CSRF tokens, and running imports.
type ui struct {
	pages  map[string]*template.Template
	secret []byte
	// session is the cookie value a browser gets after presenting the token
	// on /login (only used when Options.Token is set).
	session string
	imports *importJobs
	// central caches the central facts rankings (see centralCache).
	central *centralCache
}

func newUI(token string) *ui {
	u := &ui{secret: make([]byte, 32), imports: newImportJobs(), central: newCentralCache()}
	if _, err := rand.Read(u.secret); err != nil {
		panic(fmt.Sprintf("web: no randomness for the CSRF secret: %v", err))
	}
	if token != "" {
		m := hmac.New(sha256.New, []byte(token))
		m.Write([]byte("holomem ui session"))
		u.session = hex.EncodeToString(m.Sum(nil))
	}
	u.pages = parsePages()
	return u
}

// pageNames are the templates/<name>.html files, each rendered inside layout.html.
var pageNames = []string{"search", "browse", "graph", "central", "fact", "forget", "add", "status", "import", "job", "probe", "login", "error"}

func parsePages() map[string]*template.Template {
	base := template.Must(template.New("layout.html").Funcs(uiFuncs).ParseFS(uiFiles, "templates/layout.html"))
	out := make(map[string]*template.Template, len(pageNames))
	for _, n := range pageNames {
		out[n] = template.Must(template.Must(base.Clone()).ParseFS(uiFiles, "templates/"+n+".html"))
	}
	return out
}

// categoryColours is how many badge colours style.css defines (.cat0 ... .cat7).
const categoryColours = 8

var uiFuncs = template.FuncMap{
	// catClass gives each category a stable colour.
	"catClass": func(c string) string {
		h := fnv.New32a()
		h.Write([]byte(c))
		return "cat" + strconv.Itoa(int(h.Sum32()%categoryColours))
	},
	"f2":     func(v float64) string { return strconv.FormatFloat(v, 'f', 2, 64) },
	"f3":     func(v float64) string { return strconv.FormatFloat(v, 'f', 3, 64) },
	"when":   func(t time.Time) string { return t.UTC().Format("2006-01-02 15:04 UTC") },
	"short":  func(s string) string { return visibleBidi(uiShort(s)) },
	"vis":    visibleBidi,
	"join":   strings.Join,
	"marked": marked,
	"inc":    func(i int) int { return i + 1 },
}

// marked renders a hit's snippet as HTML with the words that matched the
// query in <mark>: every piece of text is escaped, and the only markup is
// the <mark> elements this function writes. Offsets that do not fit the
// snippet (out of order, out of range, inside a character) leave it
// unmarked rather than cut a character or let text through unescaped.
func marked(h holomem.Hit) template.HTML {
	s := h.Snippet
	if s == "" {
		s = uiShort(h.Fact.Content)
	}
	var b strings.Builder
	at := 0
	for _, m := range h.Matches {
		if m[0] < at || m[1] <= m[0] || m[1] > len(s) || !utf8.RuneStart(s[m[0]]) || (m[1] < len(s) && !utf8.RuneStart(s[m[1]])) {
			return template.HTML(template.HTMLEscapeString(visibleBidi(s))) //nolint:gosec // escaped
		}
		b.WriteString(template.HTMLEscapeString(visibleBidi(s[at:m[0]])))
		b.WriteString("<mark>")
		b.WriteString(template.HTMLEscapeString(visibleBidi(s[m[0]:m[1]])))
		b.WriteString("</mark>")
		at = m[1]
	}
	b.WriteString(template.HTMLEscapeString(visibleBidi(s[at:])))
	return template.HTML(b.String()) //nolint:gosec // every piece escaped above
}

// uiShort cuts s to what a result row shows.
func uiShort(s string) string {
	const max = 280
	if utf8.RuneCountInString(s) <= max {
		return s
	}
	r := []rune(s)
	return string(r[:max]) + "…"
}

// page is what layout.html renders around a page's content.
type page struct {
	Title string
	// Nav marks the active menu entry.
	Nav       string
	CSRF      string
	Namespace string
	// Refresh, when set, reloads the page after that many seconds (import
	// progress without JavaScript).
	Refresh int
	Flash   string
	Data    any
}

// uiRoutes registers the pages. They share the API's origin checks and,
// with a token configured, accept the session cookie set by /login.
func (s *Server) uiRoutes() {
	m := s.mux
	static, _ := fs.Sub(uiFiles, "assets")
	m.Handle("GET /static/", s.staticFiles(static))
	// Browsers ask for /favicon.ico on their own; a 404 there filled the
	// server's and the console's logs. The icon is public, like /static/.
	m.Handle("GET /favicon.ico", staticHandler(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		r2 := r.Clone(r.Context())
		r2.URL.Path = "/favicon.svg"
		http.FileServerFS(static).ServeHTTP(w, r2)
	})))
	m.HandleFunc("GET /login", s.page(s.handleLoginPage))
	m.HandleFunc("POST /login", s.page(s.handleLogin))

	m.HandleFunc("GET /{$}", s.uiAuth(s.handleSearchPage))
	m.HandleFunc("GET /browse", s.uiAuth(s.handleBrowsePage))
	m.HandleFunc("GET /facts/{id}", s.uiAuth(s.handleFactPage))
	m.HandleFunc("GET /facts/{id}/graph", s.uiAuth(s.handleGraphPage))
	m.HandleFunc("GET /graph", s.uiAuth(s.handleCentralPage))
	m.HandleFunc("POST /facts/{id}/edit", s.uiAuth(s.handleEditForm))
	m.HandleFunc("POST /facts/{id}/feedback", s.uiAuth(s.handleFeedbackForm))
	m.HandleFunc("GET /facts/{id}/forget", s.uiAuth(s.handleForgetPage))
	m.HandleFunc("POST /facts/{id}/forget", s.uiAuth(s.handleForgetForm))
	m.HandleFunc("POST /facts/{id}/supersede", s.uiAuth(s.handleSupersedeForm))
	m.HandleFunc("POST /facts/{id}/link", s.uiAuth(s.handleLinkForm))
	m.HandleFunc("GET /probe", s.uiAuth(s.handleProbePage))
	m.HandleFunc("GET /add", s.uiAuth(s.handleAddPage))
	m.HandleFunc("POST /add", s.uiAuth(s.handleAddForm))
	m.HandleFunc("GET /status", s.uiAuth(s.handleStatusPage))
	m.HandleFunc("GET /import", s.uiAuth(s.handleImportPage))
	m.HandleFunc("POST /import", s.uiAuth(s.handleImportForm))
	m.HandleFunc("GET /import/{job}", s.uiAuth(s.handleJobPage))
}

// staticHandler serves a public asset with the headers of /static/.
func staticHandler(h http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Cache-Control", "public, max-age=3600")
		w.Header().Set("X-Content-Type-Options", "nosniff")
		h.ServeHTTP(w, r)
	})
}

// pageFunc renders a page or returns an error that uiError renders.
type pageFunc func(w http.ResponseWriter, r *http.Request, p *page) error

// page wraps a handler with the headers of every page and the CSRF check
// of every POST.
func (s *Server) page(fn pageFunc) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		h := w.Header()
		h.Set("Content-Security-Policy", contentSecurityPolicy)
		// Pages show private facts: never store them in a cache.
		h.Set("Cache-Control", "no-store")
		h.Set("X-Content-Type-Options", "nosniff")
		h.Set("X-Frame-Options", "DENY")
		h.Set("Referrer-Policy", "no-referrer")
		p := &page{Namespace: s.uiNamespace(r), CSRF: s.csrfToken(w, r)}
		if r.Method == http.MethodPost {
			if err := s.parseForm(r); err != nil {
				s.uiError(w, r, p, err)
				return
			}
			if err := s.checkCSRF(r); err != nil {
				s.uiError(w, r, p, err)
				return
			}
		}
		if err := fn(w, r, p); err != nil {
			s.uiError(w, r, p, err)
		}
	}
}

// uiAuth is page plus the token rule: with Options.Token set a browser must
// have logged in (session cookie) or send the bearer token.
func (s *Server) uiAuth(fn pageFunc) http.HandlerFunc {
	return s.page(func(w http.ResponseWriter, r *http.Request, p *page) error {
		if s.opts.Token != "" && !s.uiAuthorized(r) {
			if r.Method == http.MethodGet {
				http.Redirect(w, r, "/login?next="+url.QueryEscape(r.URL.RequestURI()), http.StatusSeeOther)
				return nil
			}
			return errUnauthorized
		}
		return fn(w, r, p)
	})
}

func (s *Server) uiAuthorized(r *http.Request) bool {
	if c, err := r.Cookie(sessionCookie); err == nil && subtle.ConstantTimeCompare([]byte(c.Value), []byte(s.ui.session)) == 1 {
		return true
	}
	tok, ok := bearerToken(r.Header.Get("Authorization"))
	sum := sha256.Sum256([]byte(tok))
	return ok && subtle.ConstantTimeCompare(sum[:], s.tokenSum[:]) == 1
}

// csrfToken returns the token forms must carry: an HMAC of the browser's
// random CSRF cookie (set here when missing) under the process secret. A
// page on another origin can neither read the cookie nor forge the HMAC.
func (s *Server) csrfToken(w http.ResponseWriter, r *http.Request) string {
	c, err := r.Cookie(csrfCookie)
	val := ""
	if err == nil && len(c.Value) == 32 {
		val = c.Value
	} else {
		b := make([]byte, 16)
		rand.Read(b) //nolint:errcheck // crypto/rand.Read never fails (Go 1.24+)
		val = hex.EncodeToString(b)
		http.SetCookie(w, &http.Cookie{Name: csrfCookie, Value: val, Path: "/", HttpOnly: true, SameSite: http.SameSiteStrictMode, Secure: s.overTLS(r)})
		// The form rendered now must match the cookie the browser gets.
		r.AddCookie(&http.Cookie{Name: csrfCookie, Value: val})
	}
	m := hmac.New(sha256.New, s.ui.secret)
	m.Write([]byte(val))
	return hex.EncodeToString(m.Sum(nil))
}

var errCSRF = fmt.Errorf("%w: the form's CSRF token is missing or stale; reload the page and try again", errForbidden)

func (s *Server) checkCSRF(r *http.Request) error {
	c, err := r.Cookie(csrfCookie)
	if err != nil {
		return errCSRF
	}
	m := hmac.New(sha256.New, s.ui.secret)
	m.Write([]byte(c.Value))
	want := hex.EncodeToString(m.Sum(nil))
	got := r.Header.Get("X-CSRF-Token")
	if got == "" {
		got = s.formValue(r, csrfField)
	}
	if subtle.ConstantTimeCompare([]byte(got), []byte(want)) != 1 {
		return errCSRF
	}
	return nil
}

// formValue reads one field of a url-encoded or multipart form (bounded by
// MaxBodyBytes for url-encoded bodies; multipart is parsed by its handler).
func (s *Server) formValue(r *http.Request, name string) string {
	s.parseForm(r) //nolint:errcheck // page reported a broken body before the handler ran
	if r.MultipartForm != nil {
		if v := r.MultipartForm.Value[name]; len(v) > 0 {
			return v[0]
		}
	}
	return r.FormValue(name)
}

// parseForm parses the body once: url-encoded forms up to MaxBodyBytes,
// multipart uploads up to the import limit. It returns why the body could
// not be read (only on the first call: page makes it before the CSRF
// check, so a broken body is a clear 400 or 413, not a missing token).
func (s *Server) parseForm(r *http.Request) error {
	if r.Form != nil {
		return nil
	}
	if strings.HasPrefix(r.Header.Get("Content-Type"), "multipart/") {
		// Uploads (imports): the file plus a little room for the fields;
		// past 8 MiB the parts go to temporary files the server removes.
		limit := s.importMax() + 1<<20
		r.Body = http.MaxBytesReader(nil, r.Body, limit)
		return formError(r.ParseMultipartForm(8<<20), limit)
	}
	r.Body = http.MaxBytesReader(nil, r.Body, s.opts.MaxBodyBytes)
	return formError(r.ParseForm(), s.opts.MaxBodyBytes)
}

// formError says why a form body could not be parsed, as a 413 when it is
// too large and a 400 otherwise.
func formError(err error, limit int64) error {
	var mbe *http.MaxBytesError
	switch {
	case err == nil:
		return nil
	case errors.As(err, &mbe), errors.Is(err, multipart.ErrMessageTooLarge):
		return fmt.Errorf("%w: the form is larger than %d bytes", errTooLarge, limit)
	}
	return fmt.Errorf("%w: the form body could not be read: %v", errBadRequest, err)
}

// nsQuery is "namespace=NS" for links, or "" for the default namespace.
func (s *Server) nsQuery(ns string) string {
	if ns == "" || ns == s.opts.Namespace {
		return ""
	}
	return "namespace=" + url.QueryEscape(ns)
}

// uiNamespace is the namespace a page works in: ?namespace= or the form's
// field, else the server's default.
func (s *Server) uiNamespace(r *http.Request) string {
	if ns := strings.TrimSpace(r.URL.Query().Get("namespace")); ns != "" {
		return ns
	}
	return s.opts.Namespace
}

// render writes a page with status 200.
func (s *Server) render(w http.ResponseWriter, r *http.Request, name string, p *page) error {
	return s.renderStatus(w, r, http.StatusOK, name, p)
}

func (s *Server) renderStatus(w http.ResponseWriter, r *http.Request, status int, name string, p *page) error {
	var buf bytes.Buffer
	if err := s.ui.pages[name].ExecuteTemplate(&buf, "layout.html", p); err != nil {
		return fmt.Errorf("render %s: %w", name, err)
	}
	w.Header().Set("Content-Type", "text/html; charset=utf-8")
	w.Header().Set("Content-Length", strconv.Itoa(buf.Len()))
	w.WriteHeader(status)
	w.Write(buf.Bytes()) //nolint:errcheck // the status is sent; a failed write means the client left
	return nil
}

// seeOther redirects after a successful POST (post/redirect/get), so a
// reload never repeats the change.
func seeOther(w http.ResponseWriter, r *http.Request, path string) error {
	http.Redirect(w, r, path, http.StatusSeeOther)
	return nil
}

// uiError renders err as an HTML page with the status errorCodes gives it.
func (s *Server) uiError(w http.ResponseWriter, r *http.Request, p *page, err error) {
	status, msg := http.StatusInternalServerError, "internal error"
	for _, c := range errorCodes {
		if errors.Is(err, c.err) {
			status, msg = c.status, strings.ReplaceAll(err.Error(), "holomem: ", "")
			retryAfter(w, err)
			break
		}
	}
	if status == http.StatusInternalServerError {
		if errors.Is(err, context.Canceled) && r.Context().Err() != nil {
			return
		}
		s.log.Error("web ui", "method", r.Method, "path", r.URL.Path, "err", err)
	}
	if status == http.StatusUnauthorized {
		w.Header().Set("WWW-Authenticate", `Bearer realm="holomem"`)
	}
	p.Title, p.Data = http.StatusText(status), msg
	if htmxRequest(r) {
		s.renderAlert(w, status, p)
		return
	}
	if rerr := s.renderStatus(w, r, status, "error", p); rerr != nil {
		s.log.Error("web ui: render error page", "err", rerr)
		http.Error(w, msg, status)
	}
}

// htmxRequest reports whether htmx sent r (a boosted link or form): it
// swaps in 2xx answers only, so an error page sent with its 4xx status was
// dropped and a refused form showed nothing. A history restore is a whole
// page load and gets the page.
func htmxRequest(r *http.Request) bool {
	return r.Header.Get("HX-Request") == "true" && r.Header.Get("HX-History-Restore-Request") != "true"
}

// renderAlert answers an htmx request that failed with the error as a
// fragment for the page's #ui-error region, which the response headers
// tell htmx to fill (HX-Retarget, HX-Reswap), leaving the page and its
// form as they were and the address bar unchanged (HX-Push-Url). The
// status is 200 because htmx swaps nothing else; the error's own status
// is in X-Holomem-Status. Without JavaScript the form gets the error page
// with its status (uiError).
func (s *Server) renderAlert(w http.ResponseWriter, status int, p *page) {
	var buf bytes.Buffer
	if err := s.ui.pages["error"].ExecuteTemplate(&buf, "alert", p); err != nil {
		s.log.Error("web ui: render error alert", "err", err)
		buf.Reset()
		buf.WriteString(template.HTMLEscapeString(p.Title))
	}
	h := w.Header()
	h.Set("Content-Type", "text/html; charset=utf-8")
	h.Set("HX-Retarget", "#ui-error")
	h.Set("HX-Reswap", "innerHTML")
	h.Set("HX-Push-Url", "false")
	h.Set("X-Holomem-Status", strconv.Itoa(status))
	w.WriteHeader(http.StatusOK)
	w.Write(buf.Bytes()) //nolint:errcheck // the status is sent; a failed write means the client left
}

func (s *Server) handleLoginPage(w http.ResponseWriter, r *http.Request, p *page) error {
	p.Title = "Log in"
	p.Data = safeNext(r.URL.Query().Get("next"))
	return s.render(w, r, "login", p)
}

// handleLogin trades the token for a session cookie (HttpOnly,
// SameSite=Strict), so the token itself never sits in the browser.
func (s *Server) handleLogin(w http.ResponseWriter, r *http.Request, p *page) error {
	if s.opts.Token == "" {
		return seeOther(w, r, "/")
	}
	ip := s.clientIP(r)
	if s.logins.blocked(ip) {
		return errTooManyAttempts
	}
	sum := sha256.Sum256([]byte(s.formValue(r, "token")))
	if subtle.ConstantTimeCompare(sum[:], s.tokenSum[:]) != 1 {
		s.logins.failed(ip)
		return errUnauthorized
	}
	http.SetCookie(w, &http.Cookie{Name: sessionCookie, Value: s.ui.session, Path: "/", HttpOnly: true, SameSite: http.SameSiteStrictMode, Secure: s.overTLS(r)})
	return seeOther(w, r, safeNext(s.formValue(r, "next")))
}

// safeNext keeps a redirect target on this server: a path, never a URL.
func safeNext(next string) string {
	if !strings.HasPrefix(next, "/") || strings.HasPrefix(next, "//") || strings.Contains(next, "\\") {
		return "/"
	}
	return next
}

// pathFactID parses {id} of a page URL.
func pathFactID(r *http.Request) (int64, error) { return pathID(r) }

// factPath is the page of a fact.
func factPath(id int64) string { return "/facts/" + strconv.FormatInt(id, 10) }

// visibleBidi shows the bidirectional control characters of stored text
// as their \uXXXX escapes: shown raw, a right-to-left override makes
// "RTL \u202egnp.exe\u202c" read as "RTL exe.png". Text in form fields is
// left as stored, so an edit keeps it.
func visibleBidi(s string) string {
	if !strings.ContainsFunc(s, isBidiControl) {
		return s
	}
	var b strings.Builder
	for _, r := range s {
		if isBidiControl(r) {
			fmt.Fprintf(&b, "\\u%04x", r)
			continue
		}
		b.WriteRune(r)
	}
	return b.String()
}

// isBidiControl reports the explicit bidirectional formatting characters:
// marks, embeddings, overrides and isolates.
func isBidiControl(r rune) bool {
	switch {
	case r == 0x061C, r == 0x200E, r == 0x200F:
		return true
	case r >= 0x202A && r <= 0x202E, r >= 0x2066 && r <= 0x2069:
		return true
	}
	return false
}
