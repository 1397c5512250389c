// Package storecopy moves a whole memory between two stores (SQLite to
// PostgreSQL and back) and verifies the result.
//
// [Copy] streams facts in pages of Options.Batch (keyset paging by id, so
// memory stays flat apart from the old-id -> new-id map, 8 bytes per fact
// and per map slot), each page in one CreateFacts transaction, then the
// edges namespace by namespace. Facts keep everything the Store contract
// lets a caller restore: content, namespace, category, tags, source,
// external key, trust, counters, timestamps, anchor, embedding with its
// model, HRR vector. Entities and the full-text index are derived again by
// the destination. Supersedes edges restore superseded_by. The vector
// index's graphs (their similar_to edges and the index's own tables) are
// derived data tied to the source's ids and are not copied: [BuildGraphs]
// builds them again on the destination for the models the source had
// graphs of.
//
// A copy is resumable: the destination recognises facts it already holds
// (same content in the namespace, or the same external key) and maps them
// instead of adding duplicates, and edges are upserts. Run it again after
// an interruption.
//
// [Checksum] summarises a store without ids: every fact and edge becomes a
// canonical JSON line with the ends of edges and superseded_by named by the
// SHA-256 of (namespace, content); the lines' SHA-256 are added up lane by
// lane (an order-independent multiset hash), so two stores holding the same
// memory under different ids have equal checksums.
package storecopy

import (
	"context"
	"crypto/sha256"
	"encoding/binary"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"maps"
	"math"
	"slices"
	"time"

	"github.com/holomem/holomem"
)

// Options tune [Copy].
type Options struct {
	// Batch is how many facts one transaction copies (default 1000).
	Batch int
	// Progress, when set, is called after every batch and at the end.
	Progress func(Progress)
}

// Progress is how far a copy got.
type Progress struct {
	Facts, TotalFacts int
	// Created counts facts new to the destination (the rest it had).
	Created int
	Edges   int
	Elapsed time.Duration
	Done    bool
}

// Report is what a copy did.
type Report struct {
	Facts   int `json:"facts"`
	Created int `json:"created"`
	Edges   int `json:"edges"`
	// EdgesCreated counts edges new to the destination.
	EdgesCreated int `json:"edges_created"`
	// SkippedDerived counts HNSW graph edges left out (rebuild them).
	SkippedDerived int `json:"skipped_derived"`
}

// Derived reports whether an edge is derived data that a copy leaves out:
// the similar_to edges the vector index made, its graph's bottom layer,
// which the index rebuilds over the destination's ids. They are the edges
// [holomem.ShowEdge] shows no one who does not ask for them.
func Derived(e *holomem.Edge) bool {
	return !holomem.ShowEdge(e, nil)
}

// Copy copies every fact and non-derived edge of src into dst.
func Copy(ctx context.Context, src, dst holomem.Store, opts Options) (*Report, error) {
	if opts.Batch <= 0 {
		opts.Batch = 1000
	}
	start := time.Now()
	rep := &Report{}
	newID := map[int64]int64{}
	namespaces := map[string]bool{}
	flt := holomem.FactFilter{IncludeSuperseded: true, WithEmbedding: true, WithHRR: true, Limit: opts.Batch}
	total := -1
	for {
		page, n, err := src.FindFacts(ctx, flt)
		if err != nil {
			return rep, fmt.Errorf("copy: read facts: %w", err)
		}
		if total < 0 {
			total = n
		}
		if len(page) == 0 {
			break
		}
		old := make([]int64, len(page))
		zeroTrust := make([]bool, len(page))
		for i, f := range page {
			old[i] = f.ID
			zeroTrust[i] = f.Trust == 0
			namespaces[f.Namespace] = true
			f.ID, f.SupersededBy, f.Entities = 0, 0, nil
		}
		flt.AfterID = old[len(old)-1]
		created, err := dst.CreateFacts(ctx, page)
		if err != nil {
			return rep, fmt.Errorf("copy: write facts after id %d: %w", old[0]-1, err)
		}
		for i, f := range page {
			newID[old[i]] = f.ID
			if created[i] {
				rep.Created++
			}
			if created[i] && zeroTrust[i] {
				// CreateFact reads trust 0 as "unset" and gives the default;
				// the update restores it without moving UpdatedAt.
				zero := 0.0
				if _, err := dst.UpdateFact(ctx, f.ID, holomem.FactUpdate{Trust: &zero}); err != nil {
					return rep, fmt.Errorf("copy: restore trust of fact %d: %w", old[i], err)
				}
			}
		}
		rep.Facts += len(page)
		if opts.Progress != nil {
			opts.Progress(Progress{Facts: rep.Facts, TotalFacts: total, Created: rep.Created, Elapsed: time.Since(start)})
		}
	}
	for _, ns := range slices.Sorted(maps.Keys(namespaces)) {
		edges, err := src.FindEdges(ctx, holomem.EdgeFilter{Namespace: ns})
		if err != nil {
			return rep, fmt.Errorf("copy: read edges of %q: %w", ns, err)
		}
		var batch []*holomem.Edge
		for _, e := range edges {
			if Derived(e) {
				rep.SkippedDerived++
				continue
			}
			from, okf := newID[e.From]
			to, okt := newID[e.To]
			if !okf || !okt {
				// Written after the facts were read: the next run copies it.
				continue
			}
			batch = append(batch, &holomem.Edge{From: from, To: to, Kind: e.Kind, Weight: e.Weight, Origin: e.Origin, CreatedAt: e.CreatedAt})
		}
		for i := 0; i < len(batch); i += opts.Batch {
			part := batch[i:min(i+opts.Batch, len(batch))]
			n, err := dst.CreateEdges(ctx, part)
			if err != nil {
				return rep, fmt.Errorf("copy: write edges of %q: %w", ns, err)
			}
			rep.Edges += len(part)
			rep.EdgesCreated += n
		}
		if opts.Progress != nil {
			opts.Progress(Progress{Facts: rep.Facts, TotalFacts: total, Created: rep.Created, Edges: rep.Edges, Elapsed: time.Since(start)})
		}
	}
	if opts.Progress != nil {
		opts.Progress(Progress{Facts: rep.Facts, TotalFacts: total, Created: rep.Created, Edges: rep.Edges, Elapsed: time.Since(start), Done: true})
	}
	return rep, nil
}

// Sum is a store's checksum with the counts it covers.
type Sum struct {
	Facts int `json:"facts"`
	// Edges counts non-derived edges.
	Edges  int    `json:"edges"`
	SHA256 string `json:"sha256"`
}

// canonFact is the id-free form of a fact that Checksum hashes.
type canonFact struct {
	Namespace      string          `json:"namespace"`
	Content        string          `json:"content"`
	Category       string          `json:"category"`
	Tags           []string        `json:"tags"`
	Source         string          `json:"source"`
	ExternalKey    string          `json:"external_key"`
	Trust          float64         `json:"trust"`
	RetrievalCount int64           `json:"retrieval_count"`
	HelpfulCount   int64           `json:"helpful_count"`
	UnhelpfulCount int64           `json:"unhelpful_count"`
	CreatedAt      int64           `json:"created_at"`
	UpdatedAt      int64           `json:"updated_at"`
	Anchor         *holomem.Anchor `json:"anchor"`
	ModelID        string          `json:"model_id"`
	Embedding      string          `json:"embedding"`
	HRR            string          `json:"hrr"`
	SupersededBy   string          `json:"superseded_by"`
}

type canonEdge struct {
	From      string  `json:"from"`
	To        string  `json:"to"`
	Kind      string  `json:"kind"`
	Weight    float64 `json:"weight"`
	Origin    string  `json:"origin"`
	CreatedAt int64   `json:"created_at"`
}

func factKey(f *holomem.Fact) string {
	h := sha256.New()
	h.Write([]byte(f.Namespace))
	h.Write([]byte{0})
	h.Write([]byte(f.Content))
	return hex.EncodeToString(h.Sum(nil)[:16])
}

func digest(b []byte) string {
	s := sha256.Sum256(b)
	return hex.EncodeToString(s[:])
}

// multiset adds SHA-256 digests lane by lane: the order lines are added in
// does not matter.
type multiset [4]uint64

func (m *multiset) add(line []byte) {
	s := sha256.Sum256(line)
	for i := range m {
		m[i] += binary.BigEndian.Uint64(s[8*i:])
	}
}

func (m *multiset) String() string {
	var b [32]byte
	for i, v := range m {
		binary.BigEndian.PutUint64(b[8*i:], v)
	}
	return hex.EncodeToString(b[:])
}

// Checksum reads every fact and non-derived edge of s and returns their
// counts and id-free checksum (see the package doc).
func Checksum(ctx context.Context, s holomem.Store) (*Sum, error) {
	keys := map[int64]string{}
	type pendingFact struct {
		c   canonFact
		sup int64
	}
	var ms multiset
	sum := &Sum{}
	var superseded []pendingFact
	namespaces := map[string]bool{}
	flt := holomem.FactFilter{IncludeSuperseded: true, WithEmbedding: true, WithHRR: true, Limit: 1000}
	for {
		page, _, err := s.FindFacts(ctx, flt)
		if err != nil {
			return nil, fmt.Errorf("checksum: %w", err)
		}
		if len(page) == 0 {
			break
		}
		for _, f := range page {
			keys[f.ID] = factKey(f)
			namespaces[f.Namespace] = true
			c := canonFact{Namespace: f.Namespace, Content: f.Content, Category: f.Category, Tags: f.Tags, Source: f.Source,
				ExternalKey: f.ExternalKey, Trust: f.Trust, RetrievalCount: int64(f.RetrievalCount), HelpfulCount: int64(f.HelpfulCount),
				UnhelpfulCount: int64(f.UnhelpfulCount), CreatedAt: f.CreatedAt.UnixNano(), UpdatedAt: f.UpdatedAt.UnixNano(),
				Anchor: f.Anchor, ModelID: f.ModelID, HRR: digest(f.HRR)}
			if len(f.Embedding) > 0 {
				b := make([]byte, 4*len(f.Embedding))
				for i, x := range f.Embedding {
					binary.LittleEndian.PutUint32(b[4*i:], math.Float32bits(x))
				}
				c.Embedding = digest(b)
			}
			if f.SupersededBy != 0 {
				// The superseder may come later in id order.
				superseded = append(superseded, pendingFact{c: c, sup: f.SupersededBy})
				continue
			}
			if err := addJSON(&ms, c); err != nil {
				return nil, err
			}
		}
		sum.Facts += len(page)
		flt.AfterID = page[len(page)-1].ID
	}
	for _, p := range superseded {
		p.c.SupersededBy = keys[p.sup]
		if err := addJSON(&ms, p.c); err != nil {
			return nil, err
		}
	}
	for _, ns := range slices.Sorted(maps.Keys(namespaces)) {
		edges, err := s.FindEdges(ctx, holomem.EdgeFilter{Namespace: ns})
		if err != nil {
			return nil, fmt.Errorf("checksum: %w", err)
		}
		for _, e := range edges {
			if Derived(e) {
				continue
			}
			c := canonEdge{From: keys[e.From], To: keys[e.To], Kind: string(e.Kind), Weight: e.Weight, Origin: e.Origin, CreatedAt: e.CreatedAt.UnixNano()}
			if err := addJSON(&ms, c); err != nil {
				return nil, err
			}
			sum.Edges++
		}
	}
	sum.SHA256 = ms.String()
	return sum, nil
}

func addJSON(ms *multiset, v any) error {
	b, err := json.Marshal(v)
	if err != nil {
		return fmt.Errorf("checksum: %w", err)
	}
	ms.add(b)
	return nil
}
