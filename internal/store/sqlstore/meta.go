package sqlstore

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/holomem/holomem"
	"github.com/holomem/holomem/internal/leaf/rowcodec"
)

// SetMeta keeps a small named value (index state, canary results),
// replacing any previous one. Returns ErrInvalid for an empty key.
func (b *Base) SetMeta(ctx context.Context, key, value string) error {
	if strings.TrimSpace(key) == "" {
		return fmt.Errorf("set meta: %w: empty key", holomem.ErrInvalid)
	}
	err := b.Write(ctx, func(tx WriteTx) error {
		_, err := tx.Exec("INSERT INTO meta (key, value) VALUES (?, ?) ON CONFLICT (key) DO UPDATE SET value = excluded.value", key, value)
		return err
	})
	if err != nil {
		return fmt.Errorf("set meta %q: %w", key, err)
	}
	return nil
}

// QMeta reads the value of a meta key.
const QMeta = "SELECT value FROM meta WHERE key = ?"

// MetaValue scans the row of QMeta for key; ErrNotFound if the key was
// never set.
func MetaValue(r Row, key string) (string, error) {
	var v string
	err := r.Scan(&v)
	if errors.Is(err, ErrNoRows) {
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
func (b *Base) LogInjection(ctx context.Context, inj holomem.Injection) error {
	at := inj.At
	if at.IsZero() {
		at = b.Now()
	}
	err := b.Write(ctx, func(tx WriteTx) error {
		var id int64
		err := tx.QueryRow("INSERT INTO injections (at, namespace, outcome, hits, took_ns, detail) VALUES (?, ?, ?, ?, ?, ?) RETURNING id",
			at.UnixNano(), DefaultNamespace(inj.Namespace), inj.Outcome, inj.Hits, int64(inj.Took), rowcodec.Truncate(inj.Detail, 500)).Scan(&id)
		if err != nil {
			return err
		}
		if id%100 == 0 {
			_, err = tx.Exec("DELETE FROM injections WHERE id <= ?", id-maxInjectionLog)
		}
		return err
	})
	if err != nil {
		return fmt.Errorf("log injection: %w", err)
	}
	return nil
}

// InjectionStats summarises the hook runs since a time.
func (b *Base) InjectionStats(ctx context.Context, since time.Time) (*holomem.InjectionStats, error) {
	st := &holomem.InjectionStats{Since: since, Outcomes: map[string]int{}}
	var took []time.Duration
	err := b.Read(ctx, nil, func(tx Tx) error {
		rows, err := tx.Query("SELECT outcome, took_ns FROM injections WHERE at >= ? ORDER BY id", since.UnixNano())
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

// ChangeIDs returns the fact ids of changes, in order; nil for none.
func ChangeIDs(changes []holomem.FactChange) []int64 {
	if len(changes) == 0 {
		return nil
	}
	ids := make([]int64, len(changes))
	for i, c := range changes {
		ids[i] = c.ID
	}
	return ids
}
