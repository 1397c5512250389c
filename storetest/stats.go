package storetest

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/holomem/holomem"
)

func testStats(t *testing.T, s holomem.Store) {
	ctx := t.Context()
	a := create(t, s, &holomem.Fact{Content: "Team Alpha one", Category: "project", HRR: []byte{1}})
	b := create(t, s, &holomem.Fact{Content: "Team Beta two", HRR: []byte{1}})
	create(t, s, &holomem.Fact{Content: "Team Gamma three", Namespace: "team"})
	if err := s.Supersede(ctx, a.ID, b.ID); err != nil {
		t.Fatal(err)
	}
	st, err := s.Stats(ctx, "")
	if err != nil {
		t.Fatal(err)
	}
	if st.Facts != 3 || st.Superseded != 1 || st.WithoutHRR != 1 || st.Entities < 3 {
		t.Errorf("Stats = %+v", st)
	}
	if st.Namespaces[holomem.DefaultNamespace] != 2 || st.Namespaces["team"] != 1 {
		t.Errorf("Namespaces = %v", st.Namespaces)
	}
	if st.Categories["project"] != 1 || st.Categories[holomem.DefaultCategory] != 2 {
		t.Errorf("Categories = %v", st.Categories)
	}
	if st.Edges[string(holomem.EdgeSupersedes)] != 1 {
		t.Errorf("Edges = %v", st.Edges)
	}
	if st.SchemaVersion <= 0 {
		t.Errorf("SchemaVersion = %d", st.SchemaVersion)
	}
	st, err = s.Stats(ctx, "team")
	if err != nil || st.Facts != 1 || st.Superseded != 0 || len(st.Edges) != 0 || st.Namespaces["team"] != 1 || len(st.Namespaces) != 1 {
		t.Errorf("Stats(team) = %+v, %v", st, err)
	}
}

func testStatsEdgeActivity(t *testing.T, s holomem.Store) {
	ctx := t.Context()
	now := time.Now()
	var fs []*holomem.Fact
	for i := range 6 {
		fs = append(fs, create(t, s, fact(fmt.Sprintf("fact %d", i))))
	}
	day := 24 * time.Hour
	_, err := s.CreateEdges(ctx, []*holomem.Edge{
		// causal/import: last seen 10 days ago -> stalled.
		{From: fs[0].ID, To: fs[1].ID, Kind: holomem.EdgeCausal, Origin: holomem.OriginImport, CreatedAt: now.Add(-10 * day)},
		{From: fs[1].ID, To: fs[2].ID, Kind: holomem.EdgeCausal, Origin: holomem.OriginImport, CreatedAt: now.Add(-20 * day)},
		{From: fs[2].ID, To: fs[3].ID, Kind: holomem.EdgeCausal, Origin: holomem.OriginImport, CreatedAt: now.Add(-100 * day)},
		// causal/user: alive.
		{From: fs[3].ID, To: fs[4].ID, Kind: holomem.EdgeCausal, Origin: holomem.OriginUser, CreatedAt: now.Add(-day)},
		{From: fs[4].ID, To: fs[5].ID, Kind: holomem.EdgeCausal, Origin: holomem.OriginUser, CreatedAt: now.Add(-15 * day)},
		// temporal/auto: only old -> not stalled (it stopped long ago).
		{From: fs[0].ID, To: fs[5].ID, Kind: holomem.EdgeTemporal, Origin: holomem.OriginAuto, CreatedAt: now.Add(-200 * day)},
	})
	if err != nil {
		t.Fatal(err)
	}
	st, err := s.Stats(ctx, "")
	if err != nil {
		t.Fatal(err)
	}
	type row struct {
		kind           holomem.EdgeKind
		origin         string
		last, prev, ol int
		stalled        bool
	}
	var got []row
	for _, a := range st.EdgeActivity {
		got = append(got, row{a.Kind, a.Origin, a.Last7d, a.Prev30d, a.Older, a.Stalled})
	}
	want := []row{
		{holomem.EdgeCausal, holomem.OriginImport, 0, 2, 1, true},
		{holomem.EdgeCausal, holomem.OriginUser, 1, 1, 0, false},
		{holomem.EdgeTemporal, holomem.OriginAuto, 0, 0, 1, false},
	}
	if !slices.Equal(got, want) {
		t.Errorf("EdgeActivity = %+v, want %+v", got, want)
	}
	for _, a := range st.EdgeActivity {
		if a.Kind == holomem.EdgeCausal && a.Origin == holomem.OriginImport && a.Newest.Sub(now.Add(-10*day)).Abs() > time.Second {
			t.Errorf("Newest = %v, want 10 days ago", a.Newest)
		}
	}
}

func testMeta(t *testing.T, s holomem.Store) {
	ctx := t.Context()
	_, err := s.Meta(ctx, "hnsw")
	wantErr(t, "unset key", err, holomem.ErrNotFound)
	if err := s.SetMeta(ctx, "hnsw", "v1"); err != nil {
		t.Fatal(err)
	}
	if err := s.SetMeta(ctx, "hnsw", "v2 with ' and \" and \x01"); err != nil {
		t.Fatal(err)
	}
	if err := s.SetMeta(ctx, "empty", ""); err != nil {
		t.Fatal(err)
	}
	if v, err := s.Meta(ctx, "hnsw"); err != nil || v != "v2 with ' and \" and \x01" {
		t.Errorf("Meta = %q, %v", v, err)
	}
	if v, err := s.Meta(ctx, "empty"); err != nil || v != "" {
		t.Errorf("Meta(empty) = %q, %v", v, err)
	}
	wantErr(t, "empty key", s.SetMeta(ctx, "", "x"), holomem.ErrInvalid)
}

func testInjections(t *testing.T, s holomem.Store) {
	ctx := t.Context()
	now := time.Now()
	runs := []holomem.Injection{
		{At: now.Add(-time.Minute), Outcome: "injected", Hits: 3, Took: 20 * time.Millisecond},
		{At: now.Add(-2 * time.Minute), Outcome: "empty", Took: 10 * time.Millisecond, Namespace: "team"},
		{At: now.Add(-3 * time.Minute), Outcome: "timeout", Took: 900 * time.Millisecond, Detail: strings.Repeat("é", 1000)},
		{At: now.Add(-72 * time.Hour), Outcome: "failed", Took: time.Millisecond},
	}
	for _, r := range runs {
		if err := s.LogInjection(ctx, r); err != nil {
			t.Fatal(err)
		}
	}
	st, err := s.InjectionStats(ctx, now.Add(-time.Hour))
	if err != nil {
		t.Fatal(err)
	}
	if st.Total != 3 || st.Outcomes["injected"] != 1 || st.Outcomes["empty"] != 1 || st.Outcomes["timeout"] != 1 || st.Outcomes["failed"] != 0 {
		t.Errorf("InjectionStats = %+v", st)
	}
	if st.P50 != 20*time.Millisecond || st.P99 < st.P50 {
		t.Errorf("P50, P99 = %v, %v; want 20ms and >= P50", st.P50, st.P99)
	}
	st, err = s.InjectionStats(ctx, now)
	if err != nil || st.Total != 0 {
		t.Errorf("InjectionStats(now) = %+v, %v; want none", st, err)
	}
}

// testConcurrent writes and reads from several goroutines at once; run it
// with -race.
func testConcurrent(t *testing.T, s holomem.Store) {
	ctx := context.WithoutCancel(t.Context())
	const workers, each = 4, 10
	var wg sync.WaitGroup
	errs := make(chan error, workers*each*2)
	for w := range workers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range each {
				f := &holomem.Fact{Content: fmt.Sprintf("worker %d writes fact %d about Concurrency", w, i), HRR: []byte{byte(i)}}
				if _, err := s.CreateFact(ctx, f); err != nil {
					errs <- err
					return
				}
				if _, err := s.RecordFeedback(ctx, f.ID, i%2 == 0); err != nil {
					errs <- err
				}
				if _, err := s.SearchText(ctx, "", "concurrency fact", 5); err != nil {
					errs <- err
				}
				if _, _, err := s.FindFacts(ctx, holomem.FactFilter{Limit: 3}); err != nil {
					errs <- err
				}
			}
		}()
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Error(err)
	}
	_, n, err := s.FindFacts(ctx, holomem.FactFilter{})
	if err != nil || n != workers*each {
		t.Errorf("total = %d, %v; want %d", n, err, workers*each)
	}
	ids, _ := s.FactIDsByEntity(ctx, "", "Concurrency")
	if len(ids) != workers*each {
		t.Errorf("FactIDsByEntity(Concurrency) = %d ids, want %d", len(ids), workers*each)
	}
}
