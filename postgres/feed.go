package postgres

import (
	"context"
	"fmt"

	"github.com/holomem/holomem"
	"github.com/holomem/holomem/internal/store/sqlstore"
)

var _ holomem.OwnChangeFeeder = (*Store)(nil)

// maxFresh bounds the changes FactChanges reports early (see qFactChanges).
const maxFresh = 1000

// qFactChanges reads, in one statement and so one snapshot, the snapshot's
// xmin (every transaction below it has ended), the pruning watermark and
// the changes of transactions from since on, ordered by xid. Those below
// xmin are complete: none of those transactions can still commit. Those at
// or above xmin are of transactions that committed already (the others'
// rows are invisible): a write transaction left open anywhere in the
// cluster holds xmin back, and reporting them keeps later commits from
// waiting for it. They are reported again once xmin passes them (ids may
// repeat), and not at all while there are more than maxFresh: they wait
// for xmin then. One scan of the (xid, fact_id) index; kept this simple
// because connections plan every statement (plan_cache_mode).
const qFactChanges = `SELECT pg_snapshot_xmin(pg_current_snapshot())::text::bigint, (SELECT below FROM fact_changes_pruned),
	ARRAY(SELECT c.xid FROM fact_changes c WHERE c.xid >= $1 ORDER BY c.xid, c.fact_id LIMIT $2),
	ARRAY(SELECT c.fact_id FROM fact_changes c WHERE c.xid >= $1 ORDER BY c.xid, c.fact_id LIMIT $2)`

// FactChangeCursor returns the xmin of the current snapshot: every
// transaction below it has ended, so a follower that loads the facts after
// this call sees all their writes; see [holomem.ChangeFeeder].
func (s *Store) FactChangeCursor(ctx context.Context) (int64, error) {
	if s.isClosed() {
		return 0, errClosed
	}
	var xmin int64
	if err := s.pool.QueryRow(ctx, "SELECT pg_snapshot_xmin(pg_current_snapshot())::text::bigint").Scan(&xmin); err != nil {
		return 0, fmt.Errorf("fact change cursor: %w", err)
	}
	return xmin, nil
}

// FactChanges returns the ids of the facts changed by transactions that
// committed after the cursor since was taken, ordered by transaction id,
// and the next cursor (the snapshot's xmin); see [holomem.ChangeFeeder]
// and qFactChanges. One round trip; up to date, the index lookups find
// nothing.
func (s *Store) FactChanges(ctx context.Context, since int64) ([]int64, int64, error) {
	changes, next, err := s.FactChangeLog(ctx, since)
	return sqlstore.ChangeIDs(changes), next, err
}

// FactChangeLog is FactChanges with each change's entry: the id of the
// transaction that made it and the fact's; see [holomem.OwnChangeFeeder].
func (s *Store) FactChangeLog(ctx context.Context, since int64) ([]holomem.FactChange, int64, error) {
	if s.isClosed() {
		return nil, since, errClosed
	}
	var (
		xmin, below int64
		xids, ids   []int64
	)
	// Up to MaxFactChanges settled rows and one more, then more than
	// maxFresh fresh ones: enough to tell both limits.
	limit := holomem.MaxFactChanges + maxFresh + 2
	err := s.pool.QueryRow(ctx, qFactChanges, since, limit).Scan(&xmin, &below, &xids, &ids)
	if err != nil {
		return nil, since, fmt.Errorf("fact changes: %w", err)
	}
	if len(xids) != len(ids) {
		return nil, since, fmt.Errorf("fact changes: %d xids for %d ids", len(xids), len(ids))
	}
	if len(ids) > 0 {
		// The changes were read on the primary; the facts they name are
		// read next, on a standby only once it has replayed them.
		s.wrote(ctx)
	}
	settled := 0
	for settled < len(xids) && xids[settled] < xmin {
		settled++
	}
	var why string
	switch {
	case since < below:
		why = fmt.Sprintf("pruned below %d", below)
	case since > xmin:
		why = fmt.Sprintf("the cursor is past the current xmin %d", xmin)
	case settled > holomem.MaxFactChanges:
		why = fmt.Sprintf("more than %d changes", holomem.MaxFactChanges)
	}
	if why != "" {
		return nil, xmin, fmt.Errorf("fact changes since %d: %w (%s)", since, holomem.ErrChangesPruned, why)
	}
	if len(ids)-settled > maxFresh {
		ids = ids[:settled]
	}
	if len(ids) == 0 {
		return nil, xmin, nil
	}
	changes := make([]holomem.FactChange, len(ids))
	for i, id := range ids {
		changes[i] = holomem.FactChange{At: xids[i], ID: id}
	}
	return changes, xmin, nil
}
