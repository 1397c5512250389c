package retrieve

import (
	"context"
	"fmt"

	"github.com/holomem/holomem"
)

// Link implements [holomem.Memory.Link]: the one place hand-made edges are
// checked, whichever door (CLI, HTTP, MCP) they come through.
func (m *Memory) Link(ctx context.Context, namespace string, e *holomem.Edge) (bool, error) {
	if err := allow(ctx, namespace, true); err != nil {
		return false, err
	}
	if err := m.allowFacts(ctx, e.From, e.To); err != nil {
		return false, err
	}
	if e.Origin == "" {
		e.Origin = holomem.OriginUser
	}
	if err := e.ValidateLink(); err != nil {
		return false, fmt.Errorf("link %d -> %d: %w", e.From, e.To, err)
	}
	if err := m.bothIn(ctx, namespace, e.From, e.To); err != nil {
		return false, fmt.Errorf("link %d -> %d: %w", e.From, e.To, err)
	}
	created, err := m.store.CreateEdge(ctx, e)
	if err != nil {
		return false, fmt.Errorf("link %d -> %d: %w", e.From, e.To, err)
	}
	return created, nil
}

// Unlink implements [holomem.Memory.Unlink].
func (m *Memory) Unlink(ctx context.Context, namespace string, from, to int64, kind holomem.EdgeKind) error {
	if err := allow(ctx, namespace, true); err != nil {
		return err
	}
	if err := m.allowFacts(ctx, from, to); err != nil {
		return err
	}
	if err := holomem.ValidateUnlink(kind); err != nil {
		return fmt.Errorf("unlink %d -> %d: %w", from, to, err)
	}
	if err := m.bothIn(ctx, namespace, from, to); err != nil {
		return fmt.Errorf("unlink %d -> %d: %w", from, to, err)
	}
	if err := m.store.DeleteEdge(ctx, from, to, kind); err != nil {
		return fmt.Errorf("unlink %d -> %d: %w", from, to, err)
	}
	return nil
}

// bothIn checks that both ends of an edge are facts of namespace ("" = any
// namespace); a fact of another namespace is reported as not found, so
// nothing leaks across namespaces.
func (m *Memory) bothIn(ctx context.Context, namespace string, from, to int64) error {
	for _, id := range []int64{from, to} {
		if id <= 0 {
			return fmt.Errorf("%w: an edge needs two positive fact ids, got %d -> %d", holomem.ErrInvalid, from, to)
		}
		if namespace == "" {
			continue
		}
		f, err := m.store.FindFactByID(ctx, id)
		if err != nil {
			return err
		}
		if f.Namespace != namespace {
			return fmt.Errorf("fact %d in namespace %q: %w", id, namespace, holomem.ErrNotFound)
		}
	}
	return nil
}
