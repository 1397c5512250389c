package postgres

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"time"

	"github.com/jackc/pgx/v5"
)

// Replicas: several processes (`holomem serve` on several machines) share
// one database and keep in-memory caches (vector index, HRR vectors). Every
// write transaction sends, with its commit, a NOTIFY on channel
// notifyChannel naming its schema and the namespaces it changed
// (PostgreSQL delivers notifications only when the transaction commits, and
// never those of a rolled-back one). A Store with subscribers keeps one
// extra connection LISTENing and calls them for every change made by
// another Store; after a lost connection it reconnects and reports a change
// of every namespace, because notifications sent meanwhile are gone. The
// periodic refresh of `holomem serve` stays as the fallback.
const notifyChannel = "holomem_changes"

// maxPayload keeps notifications under PostgreSQL's 8000-byte limit; a
// transaction touching more namespaces than fit says "all" instead.
const maxPayload = 7000

type changeMsg struct {
	Origin string `json:"o"`
	Schema string `json:"s"`
	// Namespaces changed; empty means "any" (unknown or too many).
	Namespaces []string `json:"n,omitempty"`
}

func newOrigin() string {
	var b [8]byte
	_, _ = rand.Read(b[:])
	return hex.EncodeToString(b[:])
}

// notify queues the change notification of the transaction; PostgreSQL
// sends it on commit.
func (w *wtx) notify() error {
	if len(w.changed) == 0 {
		return nil
	}
	msg := changeMsg{Origin: w.s.origin, Schema: w.s.schema}
	if !w.changed[""] {
		for ns := range w.changed {
			msg.Namespaces = append(msg.Namespaces, ns)
		}
	}
	b, err := json.Marshal(msg)
	if err != nil {
		return err
	}
	if len(b) > maxPayload {
		msg.Namespaces = nil
		if b, err = json.Marshal(msg); err != nil {
			return err
		}
	}
	_, err = w.exec("SELECT pg_notify($1, $2)", notifyChannel, string(b))
	return err
}

// Subscribe calls fn with the namespace of every write committed by
// another process (or another Store) on this database and schema; "" means
// any namespace may have changed (many at once, or notifications may have
// been missed: it is reported once each time the LISTEN starts). fn runs on the listener's goroutine and must
// return quickly. The returned func unsubscribes. The first subscriber
// starts the listener; Close stops it.
func (s *Store) Subscribe(fn func(namespace string)) (cancel func()) {
	s.subMu.Lock()
	defer s.subMu.Unlock()
	if s.subscribers == nil {
		s.subscribers = map[int]func(string){}
	}
	id := s.nextSub
	s.nextSub++
	s.subscribers[id] = fn
	if s.listener == nil && !s.isClosed() {
		s.listener = s.startListener()
	}
	return func() {
		s.subMu.Lock()
		delete(s.subscribers, id)
		s.subMu.Unlock()
	}
}

func (s *Store) deliver(namespaces []string) {
	s.subMu.Lock()
	fns := make([]func(string), 0, len(s.subscribers))
	for _, fn := range s.subscribers {
		fns = append(fns, fn)
	}
	s.subMu.Unlock()
	if len(namespaces) == 0 {
		namespaces = []string{""}
	}
	for _, fn := range fns {
		for _, ns := range namespaces {
			fn(ns)
		}
	}
}

type listener struct {
	cancel context.CancelFunc
	done   chan struct{}
	// ready is closed once the first LISTEN is in place (tests wait for it).
	ready chan struct{}
}

func (l *listener) stop() {
	l.cancel()
	<-l.done
}

// startListener runs the LISTEN loop until stop: connect, LISTEN, wait for
// notifications; on any error, back off (see nextBackoff) and reconnect.
func (s *Store) startListener() *listener {
	ctx, cancel := context.WithCancel(context.Background())
	l := &listener{cancel: cancel, done: make(chan struct{}), ready: make(chan struct{})}
	cfg := s.pool.Config().ConnConfig.Copy()
	go func() {
		defer close(l.done)
		var backoff time.Duration
		for ctx.Err() == nil {
			listened, _ := s.listenOnce(ctx, cfg, l) // the loop reconnects; there is no caller to report to
			if ctx.Err() != nil {
				return
			}
			backoff = nextBackoff(backoff, listened)
			select {
			case <-ctx.Done():
				return
			case <-time.After(backoff):
			}
		}
	}()
	return l
}

// Reconnect delays of the listener: the first retry after a lost
// connection comes at once-ish, each failed attempt doubles the wait up to
// maxBackoff, and a connection that did listen starts the series again, so
// a server restarted once a day does not leave every later loss waiting
// the maximum.
const (
	minBackoff = 100 * time.Millisecond
	maxBackoff = 5 * time.Second
)

// nextBackoff returns the wait before the next connection attempt, after
// one that waited cur and did (listened) or did not get to LISTEN.
func nextBackoff(cur time.Duration, listened bool) time.Duration {
	if listened || cur <= 0 {
		return minBackoff
	}
	return min(2*cur, maxBackoff)
}

// listenOnce connects, listens and delivers notifications until the
// connection fails; listened reports whether LISTEN was in place.
func (s *Store) listenOnce(ctx context.Context, cfg *pgx.ConnConfig, l *listener) (listened bool, err error) {
	conn, err := pgx.ConnectConfig(ctx, cfg)
	if err != nil {
		return false, err
	}
	defer conn.Close(context.WithoutCancel(ctx))
	if _, err := conn.Exec(ctx, "LISTEN "+notifyChannel); err != nil {
		return false, err
	}
	select {
	case <-l.ready:
	default:
		close(l.ready)
	}
	// Whatever was sent before this LISTEN (while disconnected, or between
	// the subscriber's start and now) is lost: report a change of
	// everything once.
	s.deliver(nil)
	for {
		n, err := conn.WaitForNotification(ctx)
		if err != nil {
			return true, err
		}
		var msg changeMsg
		if json.Unmarshal([]byte(n.Payload), &msg) != nil || msg.Schema != s.schema || msg.Origin == s.origin {
			continue
		}
		s.deliver(msg.Namespaces)
	}
}
