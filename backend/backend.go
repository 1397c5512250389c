package backend

import (
	"context"
	"fmt"
	"net/url"
	"regexp"
	"slices"
	"strings"
	"sync"

	"github.com/holomem/holomem"
)

// Options are what a caller may ask of any backend when it opens a store.
// A backend ignores what does not apply to it.
type Options struct {
	// OneShot opens the store for a process that runs one command and
	// exits (the prompt hook, a CLI recall): a backend with a pool of
	// connections and a page cache per connection opens one connection
	// with a small cache, since warming a pool costs such a process more
	// than it gains (SQLite).
	OneShot bool
}

// Opener opens the store at addr (the whole address, scheme included).
type Opener func(ctx context.Context, addr string, o Options) (holomem.Store, error)

// Backend is one store implementation and the addresses it opens.
type Backend struct {
	// Name names the backend in messages ("sqlite", "postgres").
	Name string
	// Schemes are the address prefixes it opens, matched without regard
	// to case: "postgres://", "sqlite:".
	Schemes []string
	// File says the store is a local file: the address is a path (after
	// the scheme, when it has one), and an address with no scheme opens
	// this backend. At most one backend registers File.
	File bool
	// Open opens a store.
	Open Opener
	// Redact returns the address fit for messages and logs (a password
	// masked); nil shows it as is.
	Redact func(addr string) string
}

var (
	mu       sync.RWMutex
	backends []*Backend
)

// Register makes a backend available to [Open]. It panics when a scheme
// is registered twice, or a second File backend is (a program's wiring
// bug, found when it starts).
func Register(b Backend) {
	mu.Lock()
	defer mu.Unlock()
	if b.Open == nil || b.Name == "" {
		panic("backend: Register needs a name and an opener")
	}
	for _, o := range backends {
		if b.File && o.File {
			panic(fmt.Sprintf("backend: %s and %s both open plain file paths", o.Name, b.Name))
		}
		for _, s := range b.Schemes {
			if slices.Contains(o.Schemes, strings.ToLower(s)) {
				panic(fmt.Sprintf("backend: scheme %q registered twice (%s, %s)", s, o.Name, b.Name))
			}
		}
	}
	c := b
	c.Schemes = make([]string, len(b.Schemes))
	for i, s := range b.Schemes {
		c.Schemes[i] = strings.ToLower(s)
	}
	backends = append(backends, &c)
}

// Schemes returns every registered scheme, sorted, with "PATH" for plain
// file paths when a File backend is registered (for messages and help).
func Schemes() []string {
	mu.RLock()
	defer mu.RUnlock()
	return schemes()
}

// schemes is Schemes for a caller holding mu.
func schemes() []string {
	var out []string
	file := false
	for _, b := range backends {
		out = append(out, b.Schemes...)
		file = file || b.File
	}
	slices.Sort(out)
	if file {
		out = append(out, "PATH")
	}
	return out
}

// schemeRE matches an address that starts with a URL scheme and "//".
// One letter is a Windows drive ("C://x" is a path), not a scheme.
var schemeRE = regexp.MustCompile(`^([A-Za-z][A-Za-z0-9+.\-]+)://`)

// Lookup returns the backend that opens addr and the length of the scheme
// it matched (0 for a plain path). An address of the form scheme://...
// that no backend registered is an error wrapping [holomem.ErrInvalid]
// that lists the known schemes.
func Lookup(addr string) (Backend, int, error) {
	a := strings.ToLower(strings.TrimSpace(addr))
	mu.RLock()
	defer mu.RUnlock()
	for _, b := range backends {
		for _, s := range b.Schemes {
			if strings.HasPrefix(a, s) {
				return *b, len(s), nil
			}
		}
	}
	if m := schemeRE.FindStringSubmatch(a); m != nil {
		return Backend{}, 0, fmt.Errorf("%w: %s: unknown database scheme %q (known: %s)", holomem.ErrInvalid, redactURL(addr), m[1]+"://", strings.Join(schemes(), ", "))
	}
	for _, b := range backends {
		if b.File {
			return *b, 0, nil
		}
	}
	return Backend{}, 0, fmt.Errorf("%w: %s: no backend opens file paths (known: %s)", holomem.ErrInvalid, addr, strings.Join(schemes(), ", "))
}

// Open opens the store addr names with the backend registered for its
// scheme.
func Open(ctx context.Context, addr string, o Options) (holomem.Store, error) {
	b, _, err := Lookup(addr)
	if err != nil {
		return nil, fmt.Errorf("open store: %w", err)
	}
	return b.Open(ctx, addr, o)
}

// IsFile reports whether addr names a local file: a plain path or the
// scheme of a File backend. An unknown scheme is not a file (opening it
// fails).
func IsFile(addr string) bool {
	b, _, err := Lookup(addr)
	return err == nil && b.File
}

// IsRemote reports whether addr names a store of a registered backend
// that is not a local file (a database server).
func IsRemote(addr string) bool {
	b, _, err := Lookup(addr)
	return err == nil && !b.File
}

// Path returns the file path of a File backend's address (its scheme
// removed) and addr itself for anything else.
func Path(addr string) string {
	b, n, err := Lookup(addr)
	if err != nil || !b.File {
		return addr
	}
	return strings.TrimSpace(addr)[n:]
}

// Redact returns addr fit for messages: a password masked by the
// backend's Redact, or, for an unknown scheme, by URL rules.
func Redact(addr string) string {
	b, _, err := Lookup(addr)
	switch {
	case err != nil:
		return redactURL(addr)
	case b.Redact != nil:
		return b.Redact(addr)
	}
	return addr
}

// redactURL masks the password of a URL-shaped address.
func redactURL(addr string) string {
	if !schemeRE.MatchString(strings.TrimSpace(addr)) {
		return addr
	}
	u, err := url.Parse(strings.TrimSpace(addr))
	if err != nil {
		return "(unparsable address)"
	}
	return u.Redacted()
}
