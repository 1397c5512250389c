package sqlstore

import (
	"context"
	"database/sql"
	"fmt"
	"slices"
	"strings"

	"github.com/holomem/holomem"
	"github.com/holomem/holomem/internal/leaf/rowcodec"
)

// ScanHRR calls fn with each fact's HRR vector in the namespace (all
// namespaces when it is empty), not superseded unless includeSuperseded, in
// id order. Facts without a vector are skipped. fn must not keep v; an error
// from fn stops the scan and is returned.
func (b *Base) ScanHRR(ctx context.Context, namespace string, includeSuperseded bool, fn func(id int64, v []byte) error) error {
	q := "SELECT id, hrr FROM facts WHERE hrr IS NOT NULL"
	var args []any
	if namespace = strings.TrimSpace(namespace); namespace != "" {
		q += " AND " + b.Dialect.InOrder + "namespace = ?"
		args = append(args, namespace)
	}
	if !includeSuperseded {
		q += " AND superseded_by IS NULL"
	}
	q += " ORDER BY id"
	err := b.Read(ctx, nil, func(tx Tx) error { return b.scanBytes(tx, q, args, fn) })
	if err != nil {
		return fmt.Errorf("scan hrr: %w", err)
	}
	return nil
}

// ScanEmbeddings calls fn with every vector of model in the namespace ("" =
// all namespaces), superseded facts included, in id order. Vectors of other
// models are never returned. fn must not keep v; an error from fn stops the
// scan and is returned.
func (b *Base) ScanEmbeddings(ctx context.Context, namespace, model string, fn func(id int64, v []float32) error) error {
	q := "SELECT id, embedding FROM facts WHERE " + b.Dialect.InOrder + "model_id = ? AND embedding IS NOT NULL"
	args := []any{model}
	if namespace = strings.TrimSpace(namespace); namespace != "" {
		q += " AND " + b.Dialect.InOrder + "namespace = ?"
		args = append(args, namespace)
	}
	q += " ORDER BY id"
	var v []float32
	err := b.Read(ctx, nil, func(tx Tx) error {
		return b.scanBytes(tx, q, args, func(id int64, buf []byte) error {
			if len(buf)%4 != 0 {
				return fmt.Errorf("fact %d: embedding blob of %d bytes is not a float32 vector", id, len(buf))
			}
			if cap(v) < len(buf)/4 {
				v = make([]float32, len(buf)/4)
			}
			v = v[:len(buf)/4]
			rowcodec.DecodeInto(v, buf)
			return fn(id, v)
		})
	})
	if err != nil {
		return fmt.Errorf("scan embeddings: %w", err)
	}
	return nil
}

// scanBytes runs q and calls fn with each row of (id, bytes); the bytes
// are the driver's buffer where it lends one (Dialect.RawBytes).
func (b *Base) scanBytes(tx Tx, q string, args []any, fn func(id int64, v []byte) error) error {
	rows, err := tx.Query(q, args...)
	if err != nil {
		return err
	}
	defer rows.Close()
	var (
		raw sql.RawBytes
		buf []byte
		id  int64
	)
	dst := []any{&id, &buf}
	if b.Dialect.RawBytes {
		dst[1] = &raw
	}
	for rows.Next() {
		if err := rows.Scan(dst...); err != nil {
			return err
		}
		if b.Dialect.RawBytes {
			buf = raw
		}
		if err := fn(id, buf); err != nil {
			return err
		}
	}
	return rows.Err()
}

// CheckEmbeddings validates SetEmbeddings' arguments and returns the
// model id trimmed and the facts' ids in order (writers lock rows in id
// order: no deadlock between two callers). ErrInvalid for an empty model
// id, an empty vector or a non-finite value.
func CheckEmbeddings(model string, vecs map[int64][]float32) (string, []int64, error) {
	model = strings.TrimSpace(model)
	if model == "" {
		return "", nil, fmt.Errorf("set embeddings: %w: empty model id", holomem.ErrInvalid)
	}
	ids := make([]int64, 0, len(vecs))
	for id, v := range vecs {
		if len(v) == 0 {
			return "", nil, fmt.Errorf("set embeddings: %w: empty vector for fact %d", holomem.ErrInvalid, id)
		}
		if err := rowcodec.CheckVector(v); err != nil {
			return "", nil, fmt.Errorf("set embeddings: fact %d: %w", id, err)
		}
		ids = append(ids, id)
	}
	slices.Sort(ids)
	return model, ids, nil
}

// SetEmbeddings stores vectors made by model for the given facts, replacing
// any vector they had (one vector per fact). Ids that no longer exist are
// skipped: a fact forgotten while it was being embedded is not an error.
// Returns ErrInvalid for an empty model id, an empty vector or a
// non-finite value.
func (b *Base) SetEmbeddings(ctx context.Context, model string, vecs map[int64][]float32) error {
	model, ids, err := CheckEmbeddings(model, vecs)
	if err != nil || len(ids) == 0 {
		return err
	}
	blobs := make([][]byte, len(ids))
	for i, id := range ids {
		blobs[i] = rowcodec.EncodeVector(vecs[id])
	}
	err = b.Write(ctx, func(w WriteTx) error { return w.SetVectors(model, ids, blobs) })
	if err != nil {
		return fmt.Errorf("set embeddings: %w", err)
	}
	return nil
}
