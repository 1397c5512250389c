package sqlite

import (
	"context"
	"errors"
	"fmt"
	"path/filepath"
	"slices"
	"testing"

	"github.com/holomem/holomem"
	"github.com/holomem/holomem/internal/leaf/rowcodec"
)

// dedupeCorpus mixes key-less and keyed facts that repeat each other's
// content and keys, in two namespaces, within a batch and across batches.
func dedupeCorpus() []holomem.Fact {
	var out []holomem.Fact
	for i := range 60 {
		f := holomem.Fact{Content: fmt.Sprintf("content %d", i%13)}
		switch i % 4 {
		case 1:
			f.ExternalKey = fmt.Sprintf("k%d", i%7)
		case 2:
			f.ExternalKey = fmt.Sprintf("k%d", i%5)
			f.Content = fmt.Sprintf("keyed %d", i%3)
		}
		if i%9 == 8 {
			f.Namespace = "other"
		}
		out = append(out, f)
	}
	return out
}

// TestCreateFacts_DedupeAsOneByOne: the batch's prefetched duplicate
// lookups (dupIndex) give every fact the id and created flag the per-fact
// queries of CreateFact give: key-less duplicates go to the key-less fact,
// else the oldest keyed one; keyed ones by key alone.
func TestCreateFacts_DedupeAsOneByOne(t *testing.T) {
	ctx := t.Context()
	run := func(batch int) []string {
		s, err := Open(ctx, filepath.Join(t.TempDir(), fmt.Sprintf("b%d.db", batch)))
		if err != nil {
			t.Fatal(err)
		}
		defer s.Close()
		facts := dedupeCorpus()
		var out []string
		for from := 0; from < len(facts); from += batch {
			var ps []*holomem.Fact
			for i := from; i < min(from+batch, len(facts)); i++ {
				ps = append(ps, &facts[i])
			}
			var created []bool
			if batch == 1 {
				c, err := s.CreateFact(ctx, ps[0])
				if err != nil {
					t.Fatal(err)
				}
				created = []bool{c}
			} else if created, err = s.CreateFacts(ctx, ps); err != nil {
				t.Fatal(err)
			}
			for i, f := range ps {
				out = append(out, fmt.Sprintf("%d %v %s %q %q", f.ID, created[i], f.Namespace, f.ExternalKey, f.Content))
			}
		}
		return out
	}
	want := run(1)
	for _, n := range []int{3, 16, 60} {
		if got := run(n); !slices.Equal(got, want) {
			t.Errorf("batches of %d:\n%q\nwant one by one:\n%q", n, got, want)
		}
	}
}

// TestCreateFacts_HashCollision: a key-less fact whose content hash
// matches a stored fact with other content is ErrConflict, one by one and
// in a batch (the hash is forged onto a stored row).
func TestCreateFacts_HashCollision(t *testing.T) {
	ctx := t.Context()
	tests := []struct {
		name   string
		create func(context.Context, *Store, *holomem.Fact) error
	}{
		{"CreateFact", func(ctx context.Context, s *Store, f *holomem.Fact) error {
			_, err := s.CreateFact(ctx, f)
			return err
		}},
		{"CreateFacts", func(ctx context.Context, s *Store, f *holomem.Fact) error {
			_, err := s.CreateFacts(ctx, []*holomem.Fact{{Content: "unrelated"}, f})
			return err
		}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s, err := Open(ctx, filepath.Join(t.TempDir(), "c.db"))
			if err != nil {
				t.Fatal(err)
			}
			defer s.Close()
			old := &holomem.Fact{Content: "stored content"}
			if _, err := s.CreateFact(ctx, old); err != nil {
				t.Fatal(err)
			}
			if _, err := s.wdb.ExecContext(ctx, "UPDATE facts SET content_hash = ? WHERE id = ?", rowcodec.ContentHash("new content"), old.ID); err != nil {
				t.Fatal(err)
			}
			err = tt.create(ctx, s, &holomem.Fact{Content: "new content"})
			if !errors.Is(err, holomem.ErrConflict) {
				t.Errorf("create over a colliding hash = %v, want ErrConflict", err)
			}
		})
	}
}

// TestCreateFacts_GrowsWriteCache: the write connection keeps SQLite's
// default page cache until the first bulk write, then bulkCacheKiB.
func TestCreateFacts_GrowsWriteCache(t *testing.T) {
	ctx := t.Context()
	s, err := Open(ctx, filepath.Join(t.TempDir(), "cache.db"))
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	size := func() int {
		var n int
		if err := s.wdb.QueryRowContext(ctx, "PRAGMA cache_size").Scan(&n); err != nil {
			t.Fatal(err)
		}
		return n
	}
	if _, err := s.CreateFact(ctx, &holomem.Fact{Content: "one by one"}); err != nil {
		t.Fatal(err)
	}
	if n := size(); n == -bulkCacheKiB {
		t.Fatalf("cache_size after CreateFact = %d, want the default", n)
	}
	if _, err := s.CreateFacts(ctx, []*holomem.Fact{{Content: "in bulk"}}); err != nil {
		t.Fatal(err)
	}
	if n := size(); n != -bulkCacheKiB {
		t.Errorf("cache_size after CreateFacts = %d, want %d", n, -bulkCacheKiB)
	}
}
