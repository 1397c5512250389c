package storecopy_test

import (
	"context"
	"errors"
	"fmt"
	"path/filepath"
	"testing"
	"time"

	"github.com/holomem/holomem"
	"github.com/holomem/holomem/internal/app/storecopy"
	"github.com/holomem/holomem/internal/testkit/pgtest"
	"github.com/holomem/holomem/postgres"
	"github.com/holomem/holomem/sqlite"
)

func openSQLite(t *testing.T) holomem.Store {
	t.Helper()
	s, err := sqlite.Open(t.Context(), filepath.Join(t.TempDir(), "copy.db"))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { s.Close() })
	return s
}

func openPostgres(t *testing.T) holomem.Store {
	t.Helper()
	s, err := postgres.Open(t.Context(), pgtest.Addr(t))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { s.Close() })
	return s
}

// fill writes a memory with every kind of data a copy must keep.
func fill(t *testing.T, s holomem.Store, n int) {
	t.Helper()
	ctx := t.Context()
	old := time.Date(2021, 3, 4, 5, 6, 7, 8000, time.UTC)
	var fs []*holomem.Fact
	for i := range n {
		f := &holomem.Fact{
			Content:   fmt.Sprintf("Fact %d: Alice moved service-%d to Kubernetes", i, i%7),
			Namespace: []string{"default", "team"}[i%2],
			Tags:      []string{"ops", fmt.Sprintf("t%d", i%3)},
			Source:    "test", CreatedAt: old.Add(time.Duration(i) * time.Minute),
			HRR:            []byte{byte(i), 1, 2},
			RetrievalCount: int64(i % 4), HelpfulCount: 1,
			Trust: []float64{0.7, 0.2, 0.9}[i%3],
		}
		if i%5 == 0 {
			f.ExternalKey = fmt.Sprintf("k:%d", i)
			f.Embedding, f.ModelID = []float32{0.5, -0.25, float32(i)}, "m1"
		}
		if i%9 == 0 {
			f.Anchor = &holomem.Anchor{Path: "docs/a.md"}
		}
		fs = append(fs, f)
	}
	if _, err := s.CreateFacts(ctx, fs); err != nil {
		t.Fatal(err)
	}
	zero := 0.0
	if _, err := s.UpdateFact(ctx, fs[1].ID, holomem.FactUpdate{Trust: &zero}); err != nil {
		t.Fatal(err)
	}
	if err := s.Supersede(ctx, fs[0].ID, fs[2].ID); err != nil {
		t.Fatal(err)
	}
	edges := []*holomem.Edge{
		{From: fs[2].ID, To: fs[4].ID, Kind: holomem.EdgeCausal, Weight: 0.5, Origin: holomem.OriginImport, CreatedAt: old},
		{From: fs[3].ID, To: fs[5].ID, Kind: holomem.EdgeTemporal, Weight: 1},
		{From: fs[4].ID, To: fs[6].ID, Kind: holomem.EdgeSimilar, Weight: 0.9, Origin: holomem.OriginHNSW},
	}
	if _, err := s.CreateEdges(ctx, edges); err != nil {
		t.Fatal(err)
	}
}

func checksum(t *testing.T, s holomem.Store) *storecopy.Sum {
	t.Helper()
	sum, err := storecopy.Checksum(t.Context(), s)
	if err != nil {
		t.Fatal(err)
	}
	return sum
}

// TestCopy_roundTrip copies SQLite -> PostgreSQL -> SQLite and compares
// the id-free checksums; copying again adds nothing.
func TestCopy_roundTrip(t *testing.T) {
	ctx := t.Context()
	src := openSQLite(t)
	fill(t, src, 57)
	want := checksum(t, src)
	if want.Facts != 57 || want.Edges != 3 {
		t.Fatalf("source sum = %+v, want 57 facts and 3 non-derived edges (supersedes, causal, temporal)", want)
	}
	pg := openPostgres(t)
	rep, err := storecopy.Copy(ctx, src, pg, storecopy.Options{Batch: 10})
	if err != nil {
		t.Fatal(err)
	}
	if rep.Facts != 57 || rep.Created != 57 || rep.Edges != 3 || rep.SkippedDerived != 1 {
		t.Errorf("report = %+v", rep)
	}
	if got := checksum(t, pg); *got != *want {
		t.Errorf("postgres sum = %+v, want %+v", got, want)
	}
	// Again: everything is recognised, nothing duplicated.
	rep, err = storecopy.Copy(ctx, src, pg, storecopy.Options{Batch: 10})
	if err != nil || rep.Created != 0 || rep.EdgesCreated != 0 {
		t.Errorf("second copy = %+v, %v; want nothing new", rep, err)
	}
	if got := checksum(t, pg); *got != *want {
		t.Errorf("postgres sum after the second copy = %+v, want %+v", got, want)
	}
	back := openSQLite(t)
	if _, err := storecopy.Copy(ctx, pg, back, storecopy.Options{}); err != nil {
		t.Fatal(err)
	}
	if got := checksum(t, back); *got != *want {
		t.Errorf("sqlite sum after the round trip = %+v, want %+v", got, want)
	}
}

// TestCopy_resume interrupts a copy after its first batch and runs it
// again: the result is complete and verified.
func TestCopy_resume(t *testing.T) {
	src := openSQLite(t)
	fill(t, src, 40)
	dst := openPostgres(t)
	ctx, cancel := context.WithCancel(t.Context())
	_, err := storecopy.Copy(ctx, src, dst, storecopy.Options{Batch: 10, Progress: func(p storecopy.Progress) {
		if p.Facts >= 10 {
			cancel()
		}
	}})
	if !errors.Is(err, context.Canceled) {
		t.Fatalf("interrupted copy: err = %v, want context.Canceled", err)
	}
	if got := checksum(t, dst); got.Facts != 10 {
		t.Fatalf("after the interruption the destination has %d facts, want the first batch (10)", got.Facts)
	}
	rep, err := storecopy.Copy(t.Context(), src, dst, storecopy.Options{Batch: 10})
	if err != nil {
		t.Fatal(err)
	}
	if rep.Created != 30 {
		t.Errorf("resumed copy created %d facts, want 30", rep.Created)
	}
	if got, want := checksum(t, dst), checksum(t, src); *got != *want {
		t.Errorf("destination sum = %+v, want %+v", got, want)
	}
}

// TestChecksum_detectsDifference: one changed counter changes the sum.
func TestChecksum_detectsDifference(t *testing.T) {
	s := openSQLite(t)
	fill(t, s, 12)
	before := checksum(t, s)
	if err := s.MarkRetrieved(t.Context(), []int64{3}); err != nil {
		t.Fatal(err)
	}
	after := checksum(t, s)
	if after.SHA256 == before.SHA256 || after.Facts != before.Facts {
		t.Errorf("sum before %+v, after %+v: want the same counts and a different sha256", before, after)
	}
}
