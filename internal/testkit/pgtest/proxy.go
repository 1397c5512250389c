package pgtest

import (
	"io"
	"net"
	"sync"
	"testing"
)

// Proxy forwards TCP connections to a PostgreSQL server until Cut, which
// closes the listener and every open connection: to a store that is the
// server going away, as a restart or a network partition looks. Listen
// again on the same address brings it back.
type Proxy struct {
	tb     testing.TB
	target string
	mu     sync.Mutex
	ln     net.Listener
	conns  []net.Conn
}

// StartProxy listens on addr ("127.0.0.1:0" for any port) and forwards to
// target (HOST:PORT); it is cut when tb ends.
func StartProxy(tb testing.TB, target, addr string) *Proxy {
	tb.Helper()
	p := &Proxy{tb: tb, target: target}
	p.Listen(addr)
	tb.Cleanup(p.Cut)
	return p
}

// Listen (again) on addr.
func (p *Proxy) Listen(addr string) {
	ln, err := net.Listen("tcp", addr)
	if err != nil {
		p.tb.Fatal(err)
	}
	p.mu.Lock()
	p.ln = ln
	p.mu.Unlock()
	go func() {
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			s, err := net.Dial("tcp", p.target)
			if err != nil {
				c.Close()
				continue
			}
			p.mu.Lock()
			p.conns = append(p.conns, c, s)
			p.mu.Unlock()
			go func() { _, _ = io.Copy(s, c); s.Close() }()
			go func() { _, _ = io.Copy(c, s); c.Close() }()
		}
	}()
}

// Addr is the address the proxy listens on (HOST:PORT).
func (p *Proxy) Addr() string {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.ln.Addr().String()
}

// Cut closes the listener and every forwarded connection.
func (p *Proxy) Cut() {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.ln != nil {
		p.ln.Close()
	}
	for _, c := range p.conns {
		c.Close()
	}
	p.conns = nil
}
