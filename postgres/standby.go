package postgres

import (
	"context"
	"errors"
	"fmt"
	"net"
	"net/url"
	"strings"
	"sync/atomic"
	"time"

	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/holomem/holomem"
)

// StandbyParam is the address parameter that names read standbys:
// postgres://USER@PRIMARY:5432/DB?standby=HOST:PORT[,HOST:PORT...]. Each
// standby is reached with the primary's user, password, database and
// parameters; it must be a hot standby of the primary (streaming
// replication), so it holds the same schema.
const StandbyParam = "standby"

// DefaultStandbyWait bounds how long a read waits for a standby to replay
// this process's last write before it reads the primary instead.
const DefaultStandbyWait = 50 * time.Millisecond

// standbyRetryAfter is how long a standby that failed (unreachable,
// promoted, a query cancelled by replay) is left out before it is tried
// again.
const standbyRetryAfter = 5 * time.Second

// standby is one read standby: its pool, how far it has replayed as last
// seen, and until when it is left out after a failure.
type standby struct {
	pool     *pgxpool.Pool
	addr     string        // redacted, for messages
	replayed atomic.Uint64 // the last replay LSN read from it
	downTill atomic.Int64  // unix nanos; 0 when usable
}

// standbys routes reads: to a standby that has replayed this process's
// last write (read-your-writes), else to the primary.
type standbys struct {
	list []*standby
	wait time.Duration
	next atomic.Uint32 // round robin

	// lastWrite is the primary's WAL position after this process's last
	// committed write.
	lastWrite atomic.Uint64
	// asyncCommit is set when the primary's sessions commit without
	// waiting for the WAL flush (synchronous_commit = off).
	asyncCommit bool

	reads, primaryReads, waits, fallbacks atomic.Int64
}

// StandbyStats counts where this process's reads went.
type StandbyStats struct {
	// Standbys is the number of standbys configured.
	Standbys int `json:"standbys"`
	// StandbyReads ran on a standby; PrimaryReads on the primary because
	// no standby had replayed the last write within the wait, or none was
	// reachable.
	StandbyReads int64 `json:"standby_reads"`
	PrimaryReads int64 `json:"primary_reads"`
	// Waits counts reads that waited for a standby to replay the last
	// write; Fallbacks the reads that then went to the primary.
	Waits     int64 `json:"waits"`
	Fallbacks int64 `json:"fallbacks"`
}

// splitStandbys removes the standby parameter from addr and returns the
// primary's address and one address per standby.
func splitStandbys(addr string) (primary string, standbyAddrs []string, err error) {
	u, err := url.Parse(addr)
	if err != nil {
		return addr, nil, nil // pgx reports the parse error
	}
	q := u.Query()
	list := q.Get(StandbyParam)
	if !q.Has(StandbyParam) {
		return addr, nil, nil
	}
	q.Del(StandbyParam)
	u.RawQuery = q.Encode()
	primary = u.String()
	for _, hp := range strings.Split(list, ",") {
		hp = strings.TrimSpace(hp)
		if _, _, err := net.SplitHostPort(hp); err != nil {
			return "", nil, fmt.Errorf("%w: %s=%q: each standby is HOST:PORT", holomem.ErrInvalid, StandbyParam, hp)
		}
		su := *u
		su.Host = hp
		standbyAddrs = append(standbyAddrs, su.String())
	}
	return primary, standbyAddrs, nil
}

// openStandbys connects to each standby; a standby that cannot be reached
// now is kept and tried again later (reads go to the primary meanwhile),
// but one that is not in recovery is refused: reading a server that is not
// replaying the primary would return another database's answers.
func openStandbys(ctx context.Context, primary *pgxpool.Pool, addrs []string, maxConns int32, wait time.Duration) (*standbys, error) {
	if len(addrs) == 0 {
		return nil, nil
	}
	sb := &standbys{wait: wait}
	var commit string
	if err := primary.QueryRow(ctx, "SELECT current_setting('synchronous_commit')").Scan(&commit); err != nil {
		return nil, fmt.Errorf("standby: read synchronous_commit: %w", err)
	}
	sb.asyncCommit = commit == "off"
	for _, a := range addrs {
		cfg, err := pgxpool.ParseConfig(a)
		if err != nil {
			sb.close()
			return nil, fmt.Errorf("standby %s: %w: %v", redact(a), holomem.ErrInvalid, redactErr(err, a))
		}
		if maxConns > 0 {
			cfg.MaxConns = maxConns
		}
		cfg.ConnConfig.RuntimeParams["plan_cache_mode"] = "force_custom_plan"
		pool, err := pgxpool.NewWithConfig(ctx, cfg)
		if err != nil {
			sb.close()
			return nil, fmt.Errorf("standby %s: %w", redact(a), err)
		}
		st := &standby{pool: pool, addr: redact(a)}
		sb.list = append(sb.list, st)
		var inRecovery bool
		err = pool.QueryRow(ctx, "SELECT pg_is_in_recovery()").Scan(&inRecovery)
		switch {
		case err != nil:
			st.leaveOut()
		case !inRecovery:
			sb.close()
			return nil, fmt.Errorf("standby %s: %w: it is not a standby (not in recovery)", st.addr, holomem.ErrInvalid)
		}
	}
	return sb, nil
}

func (sb *standbys) close() {
	if sb == nil {
		return
	}
	for _, st := range sb.list {
		st.pool.Close()
	}
}

func (st *standby) leaveOut() {
	st.downTill.Store(time.Now().Add(standbyRetryAfter).UnixNano())
}

func (st *standby) usable() bool {
	return time.Now().UnixNano() >= st.downTill.Load()
}

// replayLSN reads how far st has replayed the primary's WAL.
func (st *standby) replayLSN(ctx context.Context) (uint64, error) {
	var lsn *int64
	err := st.pool.QueryRow(ctx, "SELECT (pg_last_wal_replay_lsn() - '0/0'::pg_lsn)::bigint").Scan(&lsn)
	if err != nil {
		return 0, err
	}
	if lsn == nil {
		return 0, errNotStandby
	}
	v := uint64(*lsn)
	for {
		old := st.replayed.Load()
		if v <= old || st.replayed.CompareAndSwap(old, v) {
			return max(v, old), nil
		}
	}
}

var errNotStandby = errors.New("the server is not in recovery (promoted?)")

// wrote records the primary's WAL position after a committed write, or
// after reading the change feed (which names other processes' writes):
// reads after it wait for a standby to replay that far.
func (s *Store) wrote(ctx context.Context) {
	if s.standbys == nil {
		return
	}
	q := "SELECT (pg_current_wal_lsn() - '0/0'::pg_lsn)::bigint"
	if s.standbys.asyncCommit {
		// With asynchronous commit the commit record may still be in WAL
		// buffers, past the write position: wait for the insert position
		// (which other sessions' records also advance, so reads fall back
		// to the primary more often).
		q = "SELECT (pg_current_wal_insert_lsn() - '0/0'::pg_lsn)::bigint"
	}
	var lsn int64
	if err := s.pool.QueryRow(ctx, q).Scan(&lsn); err != nil {
		// Not knowing the position, no standby is known to hold the
		// write: read the primary until one replays past any position.
		lsn = 1<<62 - 1
	}
	for {
		old := s.standbys.lastWrite.Load()
		if uint64(lsn) <= old || s.standbys.lastWrite.CompareAndSwap(old, uint64(lsn)) {
			return
		}
	}
}

// reader picks the pool a read runs on: a usable standby that has replayed
// this process's last write, waiting up to the standby wait for one to
// catch up; else the primary. The standby it returns, if any, is reported
// so a failed read can leave it out and run again on the primary.
func (s *Store) reader(ctx context.Context) (*pgxpool.Pool, *standby) {
	sb := s.standbys
	if sb == nil {
		return s.pool, nil
	}
	n := len(sb.list)
	start := int(sb.next.Add(1))
	want := sb.lastWrite.Load()
	for i := range n {
		st := sb.list[(start+i)%n]
		if st.usable() && st.replayed.Load() >= want {
			sb.reads.Add(1)
			return st.pool, st
		}
	}
	sb.waits.Add(1)
	deadline := time.Now().Add(sb.wait)
	for {
		for i := range n {
			st := sb.list[(start+i)%n]
			if !st.usable() {
				continue
			}
			lsn, err := st.replayLSN(ctx)
			if err != nil {
				st.leaveOut()
				continue
			}
			if lsn >= want {
				sb.reads.Add(1)
				return st.pool, st
			}
		}
		if time.Now().After(deadline) || ctx.Err() != nil {
			sb.fallbacks.Add(1)
			sb.primaryReads.Add(1)
			return s.pool, nil
		}
		time.Sleep(time.Millisecond)
	}
}

// standbyFailed decides what a failed read on standby st means: a lost
// connection, a query cancelled because replay needed its rows (SQLSTATE
// 40001 on a standby) or a promoted standby leave st out for a while and
// the read runs again on the primary (true).
func (s *Store) standbyFailed(st *standby, err error) bool {
	if st == nil || err == nil || errors.Is(err, context.Canceled) || errors.Is(err, context.DeadlineExceeded) {
		return false
	}
	if lost(err) || retryable(err) {
		st.leaveOut()
		s.standbys.primaryReads.Add(1)
		return true
	}
	return false
}

// StandbyStats says where this Store's reads went; the zero value when no
// standby is configured.
func (s *Store) StandbyStats() StandbyStats {
	sb := s.standbys
	if sb == nil {
		return StandbyStats{}
	}
	return StandbyStats{
		Standbys: len(sb.list), StandbyReads: sb.reads.Load(), PrimaryReads: sb.primaryReads.Load(),
		Waits: sb.waits.Load(), Fallbacks: sb.fallbacks.Load(),
	}
}
