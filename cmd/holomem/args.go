package main

import (
	"context"
	"fmt"
	"strconv"
	"strings"

	"github.com/holomem/holomem"
)

func parseID(s string) (int64, error) {
	id, err := strconv.ParseInt(strings.TrimPrefix(strings.TrimSpace(s), "#"), 10, 64)
	if err != nil || id <= 0 {
		return 0, usagef("%q is not a fact id (a positive number)", s)
	}
	return id, nil
}

// factArg opens the store and loads the fact an argument names.
func (a *app) factArg(ctx context.Context, arg string) (holomem.Store, *holomem.Fact, error) {
	id, err := parseID(arg)
	if err != nil {
		return nil, nil, err
	}
	s, err := a.open(ctx)
	if err != nil {
		return nil, nil, err
	}
	f, err := a.factIn(ctx, s, id)
	if err != nil {
		return nil, nil, err
	}
	return s, f, nil
}

// factIn loads fact id and checks that it lives in the command's namespace.
// Reads and writes stay in the namespace, as over HTTP and MCP: `-n teamB
// update 1` must never change teamA's fact #1. The CLI's user owns every
// namespace, so the error says where the fact is.
func (a *app) factIn(ctx context.Context, s holomem.Store, id int64) (*holomem.Fact, error) {
	f, err := s.FindFactByID(ctx, id)
	if err != nil {
		return nil, err
	}
	if ns := a.ns(); f.Namespace != ns {
		return nil, fmt.Errorf("fact %d: %w in namespace %q (it is in namespace %q: add --namespace %s)", id, holomem.ErrNotFound, ns, f.Namespace, f.Namespace)
	}
	return f, nil
}

// idsIn opens the store and checks that every id names a fact of the
// command's namespace, before a write touches any of them. An error names
// the operation op ("supersede"), once.
func (a *app) idsIn(ctx context.Context, op string, ids ...int64) error {
	s, err := a.open(ctx)
	if err != nil {
		return err
	}
	for _, id := range ids {
		if _, err := a.factIn(ctx, s, id); err != nil {
			return fmt.Errorf("%s: %w", op, err)
		}
	}
	return nil
}

// parseIDPair parses the two fact ids of supersede, link and unlink.
func parseIDPair(args []string) (int64, int64, error) {
	a, err := parseID(args[0])
	if err != nil {
		return 0, 0, err
	}
	b, err := parseID(args[1])
	return a, b, err
}
