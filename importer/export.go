package importer

import (
	"bufio"
	"context"
	"fmt"
	"io"

	"github.com/holomem/holomem"
)

// ExportReport counts what [Export] wrote.
type ExportReport struct {
	Facts int `json:"facts"`
	Edges int `json:"edges"`
}

// Export writes the facts (superseded ones and vectors included) and the
// edges of namespace ("" = every namespace) to w as JSONL that [JSONL]
// reads back losslessly. It shows edges by the rule every door follows
// ([holomem.ShowEdge], asking for no kind): the vector index's similar_to
// edges are left out, `graph build` rebuilds them.
// Export stops when ctx is done.
func Export(ctx context.Context, store holomem.ImportStore, w io.Writer, namespace string) (*ExportReport, error) {
	bw := bufio.NewWriterSize(w, 1<<20)
	jw := NewJSONLWriter(bw)
	flt := holomem.FactFilter{IncludeSuperseded: true, WithEmbedding: true, Limit: 1000}
	if namespace != "" {
		flt.Namespace = &namespace
	}
	rep := &ExportReport{}
	for {
		page, _, err := store.FindFacts(ctx, flt)
		if err != nil {
			return rep, fmt.Errorf("export facts: %w", err)
		}
		if len(page) == 0 {
			break
		}
		for _, f := range page {
			if err := jw.WriteFact(f); err != nil {
				return rep, fmt.Errorf("export fact %d: %w", f.ID, err)
			}
		}
		rep.Facts += len(page)
		flt.AfterID = page[len(page)-1].ID
	}
	edges, err := store.FindEdges(ctx, holomem.EdgeFilter{Namespace: namespace})
	if err != nil {
		return rep, fmt.Errorf("export edges: %w", err)
	}
	for _, e := range edges {
		if !holomem.ShowEdge(e, nil) {
			continue
		}
		if err := jw.WriteEdge(e); err != nil {
			return rep, fmt.Errorf("export edge %d -> %d: %w", e.From, e.To, err)
		}
		rep.Edges++
	}
	if err := jw.Flush(); err != nil {
		return rep, err
	}
	return rep, bw.Flush()
}
