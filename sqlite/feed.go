package sqlite

import (
	"context"
	"database/sql"
	"fmt"

	"github.com/holomem/holomem"
	"github.com/holomem/holomem/internal/store/sqlstore"
)

var _ holomem.OwnChangeFeeder = (*Store)(nil)

// qFactChanges reads the feed from the row at since (which a follower has
// seen) on: one seek on the rowid. The row at since tells that nothing was
// pruned in between; with nothing new it is the only row.
const qFactChanges = "SELECT seq, fact_id FROM fact_changes WHERE seq >= ? ORDER BY seq LIMIT ?"

// qFactChangeHead is the last seq given: sqlite_sequence keeps it even
// when the table is empty (a tool deleted the rows).
const qFactChangeHead = `SELECT max(
	coalesce((SELECT seq FROM sqlite_sequence WHERE name = 'fact_changes'), 0),
	coalesce((SELECT max(seq) FROM fact_changes), 0))`

// FactChangeCursor returns the seq of the last change committed (0 for a
// database without changes); see [holomem.ChangeFeeder].
func (s *Store) FactChangeCursor(ctx context.Context) (int64, error) {
	var head int64
	if err := s.rdb.QueryRowContext(ctx, qFactChangeHead).Scan(&head); err != nil {
		return 0, fmt.Errorf("fact change cursor: %w", err)
	}
	return head, nil
}

// FactChanges returns the ids of the facts changed after since, in commit
// order; see [holomem.ChangeFeeder] and FactChangeLog.
func (s *Store) FactChanges(ctx context.Context, since int64) ([]int64, int64, error) {
	changes, next, err := s.FactChangeLog(ctx, since)
	return sqlstore.ChangeIDs(changes), next, err
}

// FactChangeLog returns the changes after since, in commit order, each
// with its seq; see [holomem.OwnChangeFeeder]. It reads the rows from
// since on in one snapshot: when the first is neither
// since nor since+1, the rows between were pruned. Up to date, it costs
// one indexed lookup of one row.
func (s *Store) FactChangeLog(ctx context.Context, since int64) ([]holomem.FactChange, int64, error) {
	pruned := func(why string) ([]holomem.FactChange, int64, error) {
		head, err := s.FactChangeCursor(ctx)
		if err != nil {
			return nil, since, fmt.Errorf("fact changes: %w", err)
		}
		return nil, head, fmt.Errorf("fact changes since %d: %w (%s)", since, holomem.ErrChangesPruned, why)
	}
	if since < 0 {
		return pruned("negative cursor")
	}
	var (
		changes []holomem.FactChange
		first   = int64(-1)
		next    = since
		head    int64
		newer   bool
		st      = s.readStmt(ctx, qFactChanges)
	)
	// Up to since's row, MaxFactChanges ids, and one more to tell that
	// there are more.
	scan := func(rows *sql.Rows, err error) error {
		return eachRow(rows, err, func(rows *sql.Rows) error {
			var seq, id int64
			if err := rows.Scan(&seq, &id); err != nil {
				return err
			}
			if first < 0 {
				first = seq
			}
			if seq > since {
				changes = append(changes, holomem.FactChange{At: seq, ID: id})
				next = seq
			}
			return nil
		})
	}
	var err error
	if holomem.IsReadForWrite(ctx) {
		// The checks before an add follow the feed first: one read on
		// the write connection (see readOnWriter), whose snapshot also
		// gives the head when no row is at or after since.
		err = s.read(ctx, func(tx *sql.Tx) error {
			if err := scan(txQuery(ctx, tx, st, qFactChanges, since, holomem.MaxFactChanges+2)); err != nil || first >= 0 {
				return err
			}
			return tx.QueryRowContext(ctx, qFactChangeHead).Scan(&head)
		})
	} else {
		// One statement and no transaction: a warm recall reads the feed
		// before every query.
		var rows *sql.Rows
		if st != nil {
			rows, err = st.QueryContext(ctx, since, holomem.MaxFactChanges+2)
		} else {
			rows, err = s.rdb.QueryContext(ctx, qFactChanges, since, holomem.MaxFactChanges+2)
		}
		if err = scan(rows, err); err == nil && first < 0 {
			// Both in one snapshot: a row committed after the query
			// above is no reason to reload.
			err = s.rdb.QueryRowContext(ctx, "SELECT EXISTS (SELECT 1 FROM fact_changes WHERE seq >= ?), ("+qFactChangeHead+")", since).Scan(&newer, &head)
		}
	}
	if err != nil {
		return nil, since, fmt.Errorf("fact changes: %w", err)
	}
	switch {
	case first < 0:
		// No row at or after since: up to date only if since is the head
		// (an empty feed); otherwise the cursor is not this database's.
		switch {
		case newer:
			return s.FactChangeLog(ctx, since) // the feed has a row at since now
		case head == since:
			return nil, since, nil
		}
		return nil, head, fmt.Errorf("fact changes since %d: %w (the feed ends at %d)", since, holomem.ErrChangesPruned, head)
	case first > since+1:
		return pruned(fmt.Sprintf("the feed starts at %d", first))
	case len(changes) > holomem.MaxFactChanges:
		return pruned(fmt.Sprintf("more than %d changes", holomem.MaxFactChanges))
	}
	return changes, next, nil
}
