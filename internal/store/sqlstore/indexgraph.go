package sqlstore

import (
	"context"
	"fmt"
)

// DeleteIndexGraph removes namespace's index graph: its description and
// upper-layer links (holomem.IndexGraphStore).
func (b *Base) DeleteIndexGraph(ctx context.Context, namespace string) error {
	if err := b.Write(ctx, func(w WriteTx) error { return DeleteIndexGraph(w, namespace) }); err != nil {
		return fmt.Errorf("delete index graph of %q: %w", namespace, err)
	}
	return nil
}

// DeleteIndexGraph removes namespace's index graph within tx (a save
// replaces the graph in one transaction).
func DeleteIndexGraph(tx Tx, namespace string) error {
	if _, err := tx.Exec("DELETE FROM index_graphs WHERE namespace = ?", namespace); err != nil {
		return err
	}
	_, err := tx.Exec("DELETE FROM index_links WHERE namespace = ?", namespace)
	return err
}
