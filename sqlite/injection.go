package sqlite

import (
	"context"
	"database/sql"
	"fmt"
	"time"

	"github.com/holomem/holomem"
	"github.com/holomem/holomem/internal/rowcodec"
)

// maxInjectionLog is how many hook runs the log keeps; older rows are
// pruned on write so the log cannot grow without bound.
const maxInjectionLog = 10_000

// LogInjection records one run of the prompt hook.
func (s *Store) LogInjection(ctx context.Context, inj holomem.Injection) error {
	err := s.update(ctx, func(w *wtx) error {
		at := inj.At
		if at.IsZero() {
			at = w.now
		}
		res, err := w.exec("INSERT INTO injections(at, namespace, outcome, hits, took_ns, detail) VALUES (?, ?, ?, ?, ?, ?)",
			nanos(at), defaultNamespace(inj.Namespace), inj.Outcome, inj.Hits, int64(inj.Took), rowcodec.Truncate(inj.Detail, 500))
		if err != nil {
			return err
		}
		id, err := res.LastInsertId()
		if err != nil {
			return err
		}
		if id%100 == 0 {
			_, err = w.exec("DELETE FROM injections WHERE id <= ?", id-maxInjectionLog)
		}
		return err
	})
	if err != nil {
		return fmt.Errorf("log injection: %w", err)
	}
	return nil
}

// InjectionStats summarises the hook runs since a time.
func (s *Store) InjectionStats(ctx context.Context, since time.Time) (*holomem.InjectionStats, error) {
	st := &holomem.InjectionStats{Since: since, Outcomes: map[string]int{}}
	var took []time.Duration
	err := s.read(ctx, func(tx *sql.Tx) error {
		rows, err := tx.QueryContext(ctx, "SELECT outcome, took_ns FROM injections WHERE at >= ? ORDER BY id", nanos(since))
		if err != nil {
			return err
		}
		defer rows.Close()
		for rows.Next() {
			var outcome string
			var ns int64
			if err := rows.Scan(&outcome, &ns); err != nil {
				return err
			}
			st.Outcomes[outcome]++
			st.Total++
			took = append(took, time.Duration(ns))
		}
		return rows.Err()
	})
	if err != nil {
		return nil, fmt.Errorf("injection stats: %w", err)
	}
	rowcodec.SetInjectionPercentiles(st, took)
	return st, nil
}
