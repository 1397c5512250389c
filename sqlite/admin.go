package sqlite

import (
	"context"
	"crypto/sha256"
	"database/sql"
	"encoding/hex"
	"errors"
	"fmt"
	"strings"
)

// ftsProbe exercises everything the index text depends on: case, English
// and Russian stems, ё, diacritics, digits and punctuation.
const ftsProbe = "Deploying deployed services; Россия России ёлка Ёж café naïve v1.2 snake_case CamelCase #tag"

// scopeSQL computes a fact row's scope column in the full-text index; the
// triggers in migration/0003_fts_scope.sql use the same expression.
const scopeSQL = `CASE WHEN superseded_by IS NULL THEN 'l' ELSE 's' END || hex(namespace)`

// ftsFingerprintKey is the meta key (reserved for this package) holding the
// fingerprint of the index text the full-text index was built with.
const ftsFingerprintKey = "sqlite.fts_fingerprint"

// ftsFingerprint identifies the behaviour of the index text function: when
// package text changes its tokens or stems, the fingerprint changes and the
// next Open rebuilds the index.
func ftsFingerprint() string {
	sum := sha256.Sum256([]byte(indexText(ftsProbe)))
	return hex.EncodeToString(sum[:8])
}

// syncFTS rebuilds the full-text index when it was built by a different
// index text function (or never recorded which).
func (s *Store) syncFTS(ctx context.Context) error {
	want := ftsFingerprint()
	got, err := s.Meta(ctx, ftsFingerprintKey)
	if err == nil && got == want {
		return nil
	}
	return s.Reindex(ctx)
}

// Reindex rebuilds the full-text index from the facts. Open does this by
// itself when the tokeniser or stemmer changed since the index was built;
// it takes about as long as importing the facts again.
func (s *Store) Reindex(ctx context.Context) error {
	err := s.update(ctx, func(w *wtx) error {
		if _, err := w.tx.ExecContext(ctx, "INSERT INTO facts_fts(facts_fts) VALUES ('delete-all')"); err != nil {
			return err
		}
		if _, err := w.tx.ExecContext(ctx, "INSERT INTO facts_fts(rowid, content, tags, scope) SELECT id, holomem_fts(content), holomem_fts(tags), "+scopeSQL+" FROM facts"); err != nil {
			return err
		}
		_, err := w.tx.ExecContext(ctx, "INSERT INTO meta (key, value) VALUES (?, ?) ON CONFLICT(key) DO UPDATE SET value = excluded.value", ftsFingerprintKey, ftsFingerprint())
		return err
	})
	if err != nil {
		return fmt.Errorf("reindex: %w", err)
	}
	return nil
}

// Check verifies the database file (PRAGMA integrity_check), foreign keys
// and the full-text index, and returns an error listing the problems found.
// It reads the whole file, so it is for doctor, not for every open.
func (s *Store) Check(ctx context.Context) error {
	var problems []string
	err := s.read(ctx, func(tx *sql.Tx) error {
		var err error
		problems, err = pageProblems(ctx, tx)
		return err
	})
	if err != nil {
		return fmt.Errorf("check: %w", err)
	}
	// The FTS5 integrity check is written as an INSERT, so it runs on the
	// write connection (it changes nothing).
	err = s.update(ctx, func(w *wtx) error {
		_, err := w.tx.ExecContext(ctx, "INSERT INTO facts_fts(facts_fts, rank) VALUES ('integrity-check', 0)")
		return err
	})
	if err != nil {
		problems = append(problems, "full-text index: "+err.Error())
	}
	if len(problems) > 0 {
		return fmt.Errorf("check: %w", errors.New(strings.Join(problems, "; ")))
	}
	return nil
}
