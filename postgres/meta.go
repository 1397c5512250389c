package postgres

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/holomem/holomem"
	"github.com/holomem/holomem/internal/rowcodec"
)

// SetMeta keeps a small named value, replacing any previous one. Returns
// ErrInvalid for an empty key.
func (s *Store) SetMeta(ctx context.Context, key, value string) error {
	if strings.TrimSpace(key) == "" {
		return fmt.Errorf("set meta: %w: empty key", holomem.ErrInvalid)
	}
	err := s.update(ctx, func(w *wtx) error {
		_, err := w.exec("INSERT INTO meta (key, value) VALUES ($1, $2) ON CONFLICT (key) DO UPDATE SET value = excluded.value", key, value)
		return err
	})
	if err != nil {
		return fmt.Errorf("set meta %q: %w", key, err)
	}
	return nil
}

// Meta returns the value stored under key, or ErrNotFound.
func (s *Store) Meta(ctx context.Context, key string) (string, error) {
	if s.isClosed() {
		return "", fmt.Errorf("meta %q: %w", key, errClosed)
	}
	var v string
	err := s.pool.QueryRow(ctx, "SELECT value FROM meta WHERE key = $1", key).Scan(&v)
	if errors.Is(err, pgx.ErrNoRows) {
		return "", fmt.Errorf("meta %q: %w", key, holomem.ErrNotFound)
	}
	if err != nil {
		return "", fmt.Errorf("meta %q: %w", key, err)
	}
	return v, nil
}

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
		var id int64
		err := w.queryRow("INSERT INTO injections (at, namespace, outcome, hits, took_ns, detail) VALUES ($1, $2, $3, $4, $5, $6) RETURNING id",
			nanos(at), defaultNamespace(inj.Namespace), inj.Outcome, inj.Hits, int64(inj.Took), rowcodec.Truncate(inj.Detail, 500)).Scan(&id)
		if err != nil {
			return err
		}
		if id%100 == 0 {
			_, err = w.exec("DELETE FROM injections WHERE id <= $1", id-maxInjectionLog)
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
	err := s.read(ctx, func(tx pgx.Tx) error {
		rows, err := tx.Query(ctx, "SELECT outcome, took_ns FROM injections WHERE at >= $1 ORDER BY id", nanos(since))
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
