package web

import (
	"fmt"
	"net"
	"strings"
	"unicode/utf8"

	"github.com/holomem/holomem"
)

// DefaultAddr is where `holomem serve` listens by default: loopback only.
const DefaultAddr = "127.0.0.1:7777"

// ListenAddrAllowed reports whether the server may listen on addr. Binding
// anything but a loopback address (127.0.0.0/8, ::1, localhost) exposes the
// memory to the network, so it is refused without a token. The error wraps
// holomem.ErrInvalid. Host names other than localhost are not resolved and
// count as non-loopback.
func ListenAddrAllowed(addr, token string) error {
	host, _, err := net.SplitHostPort(addr)
	if err != nil {
		return fmt.Errorf("%w: listen address %q: %v (use host:port, e.g. %s)", holomem.ErrInvalid, addr, err, DefaultAddr)
	}
	if isLoopback(host) {
		return nil
	}
	if t := strings.TrimSpace(token); t != "" {
		if utf8.RuneCountInString(t) < MinRemoteTokenLen {
			return fmt.Errorf("%w: refusing to listen on %q with a %d-character token: beyond loopback the token must be at least %d characters (e.g. openssl rand -hex 32)", holomem.ErrInvalid, addr, utf8.RuneCountInString(t), MinRemoteTokenLen)
		}
		return nil
	}
	return fmt.Errorf("%w: refusing to listen on %q without a token: anyone on the network could read and change the memory; set a token or bind %s", holomem.ErrInvalid, addr, DefaultAddr)
}

// isLoopbackAddr reports whether a host or host:port names a loopback address.
func isLoopbackAddr(hostport string) bool {
	host := hostport
	if h, _, err := net.SplitHostPort(hostport); err == nil {
		host = h
	}
	return isLoopback(host)
}

func isLoopback(host string) bool {
	if strings.EqualFold(host, "localhost") {
		return true
	}
	ip := net.ParseIP(strings.Trim(host, "[]"))
	return ip != nil && ip.IsLoopback()
}

// ValidateOptions reports a setting NewServer cannot honour: a trusted
// proxy that is not an address or prefix. serve calls it before binding.
func ValidateOptions(opts Options) error {
	_, err := parseProxies(opts.TrustedProxies)
	return err
}
