package web

import (
	"fmt"
	"io/fs"
	"net"
	"net/http"
	"net/netip"
	"path"
	"strings"
	"sync"
	"time"

	"github.com/holomem/holomem"
)

// MinRemoteTokenLen is the shortest token `serve` accepts when it listens
// beyond loopback: a shorter one can be guessed over the network.
const MinRemoteTokenLen = 32

// Login throttling: after loginFailures wrong tokens from one client
// address within loginWindow, /login answers 429 until the window passes.
const (
	loginFailures = 5
	loginWindow   = time.Minute
)

// errTooManyAttempts is /login's answer to a client past its failures.
var errTooManyAttempts = fmt.Errorf("too many wrong tokens from this address; wait a minute and try again")

// loginLimiter counts /login failures per client address.
type loginLimiter struct {
	mu   sync.Mutex
	now  func() time.Time
	fail map[string][]time.Time
}

func newLoginLimiter() *loginLimiter {
	return &loginLimiter{now: time.Now, fail: map[string][]time.Time{}}
}

// recent returns ip's failures within the window, dropping older ones (and,
// now and then, every address's old entries).
func (l *loginLimiter) recent(ip string) []time.Time {
	cut := l.now().Add(-loginWindow)
	if len(l.fail) > 4096 {
		for k, ts := range l.fail {
			if len(ts) == 0 || ts[len(ts)-1].Before(cut) {
				delete(l.fail, k)
			}
		}
	}
	ts := l.fail[ip]
	i := 0
	for i < len(ts) && ts[i].Before(cut) {
		i++
	}
	ts = ts[i:]
	if len(ts) == 0 {
		delete(l.fail, ip)
	} else {
		l.fail[ip] = ts
	}
	return ts
}

// blocked reports whether ip used up its failures.
func (l *loginLimiter) blocked(ip string) bool {
	l.mu.Lock()
	defer l.mu.Unlock()
	return len(l.recent(ip)) >= loginFailures
}

// failed records a wrong token from ip.
func (l *loginLimiter) failed(ip string) {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.fail[ip] = append(l.recent(ip), l.now())
}

// parseProxies parses Options.TrustedProxies: addresses or CIDR prefixes.
func parseProxies(list []string) ([]netip.Prefix, error) {
	var out []netip.Prefix
	for _, s := range list {
		s = strings.TrimSpace(s)
		if s == "" {
			continue
		}
		if p, err := netip.ParsePrefix(s); err == nil {
			out = append(out, p.Masked())
			continue
		}
		a, err := netip.ParseAddr(s)
		if err != nil {
			return nil, fmt.Errorf("%w: trusted proxy %q is not an IP address or CIDR prefix", holomem.ErrInvalid, s)
		}
		out = append(out, netip.PrefixFrom(a.Unmap(), a.Unmap().BitLen()))
	}
	return out, nil
}

// remoteIP is the address the request came from (its TCP peer).
func remoteIP(r *http.Request) (netip.Addr, bool) {
	host, _, err := net.SplitHostPort(r.RemoteAddr)
	if err != nil {
		host = r.RemoteAddr
	}
	a, err := netip.ParseAddr(host)
	return a.Unmap(), err == nil
}

// fromTrustedProxy reports whether the request's peer is a configured
// proxy, whose forwarding headers may then be believed.
func (s *Server) fromTrustedProxy(r *http.Request) bool {
	a, ok := remoteIP(r)
	if !ok {
		return false
	}
	for _, p := range s.proxies {
		if p.Contains(a) {
			return true
		}
	}
	return false
}

// clientIP is the client's address for throttling: the peer, or behind a
// trusted proxy the last address it appended to X-Forwarded-For.
func (s *Server) clientIP(r *http.Request) string {
	if s.fromTrustedProxy(r) {
		if xff := r.Header.Get("X-Forwarded-For"); xff != "" {
			parts := strings.Split(xff, ",")
			if a, err := netip.ParseAddr(strings.TrimSpace(parts[len(parts)-1])); err == nil {
				return a.Unmap().String()
			}
		}
	}
	if a, ok := remoteIP(r); ok {
		return a.String()
	}
	return r.RemoteAddr
}

// overTLS reports whether the browser reached the server over TLS:
// directly, or through a trusted proxy that says so in X-Forwarded-Proto.
// Cookies are marked Secure then.
func (s *Server) overTLS(r *http.Request) bool {
	if r.TLS != nil {
		return true
	}
	return s.fromTrustedProxy(r) && strings.EqualFold(strings.TrimSpace(strings.Split(r.Header.Get("X-Forwarded-Proto"), ",")[0]), "https")
}

// loginAssets are the static files the login page links: the same bytes
// in every holomem binary, nothing private, so a browser that has not
// logged in yet may fetch them. Every other /static/ path needs the token.
var loginAssets = map[string]bool{"style.css": true, "htmx.min.js": true, "favicon.svg": true}

// staticFiles serves the embedded assets: files only (a directory, even
// the root, is 404, never a listing), behind the token except the login
// page's own assets.
func (s *Server) staticFiles(assets fs.FS) http.Handler {
	files := http.FileServerFS(assets)
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		name := strings.TrimPrefix(r.URL.Path, "/static/")
		if s.opts.Token != "" && !loginAssets[name] && !s.uiAuthorized(r) {
			w.Header().Set("WWW-Authenticate", `Bearer realm="holomem"`)
			s.writeError(w, r, errUnauthorized)
			return
		}
		if name == "" || strings.HasSuffix(name, "/") || !fs.ValidPath(name) {
			http.NotFound(w, r)
			return
		}
		if st, err := fs.Stat(assets, path.Clean(name)); err != nil || st.IsDir() {
			http.NotFound(w, r)
			return
		}
		w.Header().Set("Cache-Control", "public, max-age=3600")
		w.Header().Set("X-Content-Type-Options", "nosniff")
		r2 := r.Clone(r.Context())
		r2.URL.Path = "/" + name
		r2.URL.RawPath = ""
		files.ServeHTTP(w, r2)
	})
}
