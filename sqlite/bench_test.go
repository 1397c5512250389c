package sqlite_test

import (
	"database/sql"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/holomem/holomem"
	"github.com/holomem/holomem/sqlite"
)

// Package-level sinks keep the compiler from dropping benchmark work.
var (
	sinkMatches []holomem.TextMatch
	sinkBool    bool
)

// hrrBytes is the size of one encoded HRR vector the memory service stores.
const hrrBytes = 1025

var (
	benchNames = []string{"Alice", "Bob", "Carol", "Dave", "Erin", "Frank", "Grace", "Heidi", "Ivan", "Judy",
		"Mallory", "Niaj", "Olivia", "Peggy", "Rupert", "Sybil", "Trent", "Victor", "Walter", "Москва",
		"Kubernetes", "PostgreSQL", "Redis", "Nginx", "GitHub", "Grafana", "Prometheus", "Kafka", "Docker", "Terraform"}
	benchWords = strings.Fields(`the a to of and in is for on with that by this be it from as are at was
		deploy deployed deploying service services server database config configuration cache queue worker
		build release branch commit merge review test tests failing flaky timeout latency memory disk cpu
		user users prefers wants uses likes team project api endpoint request response error errors retry
		backup restore migrate migration schema index query slow fast network proxy certificate token
		secret rotate weekly daily nightly staging production cluster node pod container image registry
		log logs metric metrics alert alerts dashboard incident postmortem fix fixed bug issue feature
		сервер база данных пользователь сборка релиз ошибка ошибки кэш очередь настройка настройки`)
)

// benchFact returns a realistic fact: a 100-200 character sentence with a
// few entities (names, an identifier, sometimes a path or an issue), and a
// random HRR blob.
func benchFact(r *rand.Rand, i int) *holomem.Fact {
	var b strings.Builder
	b.WriteString(benchNames[r.IntN(len(benchNames))])
	target := 100 + r.IntN(100)
	for b.Len() < target {
		b.WriteByte(' ')
		switch k := r.IntN(40); {
		case k == 0:
			b.WriteString(benchNames[r.IntN(len(benchNames))])
		case k == 1:
			fmt.Fprintf(&b, "max_conn_%d", r.IntN(50))
		case k == 2:
			fmt.Fprintf(&b, "cmd/svc%d/main.go", r.IntN(20))
		case k == 3:
			fmt.Fprintf(&b, "#%d", 1000+r.IntN(500))
		default:
			// Zipf-like: low indexes (common words) far more often.
			w := int(float64(len(benchWords)) * r.Float64() * r.Float64())
			b.WriteString(benchWords[w])
		}
	}
	fmt.Fprintf(&b, " (note %d).", i)
	hrr := make([]byte, hrrBytes)
	for j := range hrr {
		hrr[j] = byte(r.Uint32())
	}
	return &holomem.Fact{Content: b.String(), Tags: []string{"bench"}, HRR: hrr}
}

func benchStore(b *testing.B) *sqlite.Store {
	b.Helper()
	return mustOpen(b, filepath.Join(b.TempDir(), "bench.db"))
}

// BenchmarkCreateFact inserts facts one transaction each.
func BenchmarkCreateFact(b *testing.B) {
	s := benchStore(b)
	r := rand.New(rand.NewPCG(1, 2))
	b.ReportAllocs()
	i := 0
	for b.Loop() {
		created, err := s.CreateFact(b.Context(), benchFact(r, i))
		if err != nil {
			b.Fatal(err)
		}
		sinkBool = created
		i++
	}
	b.ReportMetric(float64(i)/b.Elapsed().Seconds(), "facts/s")
}

// BenchmarkCreateFacts_1000 inserts batches of 1000 facts, one transaction
// per batch, as an import does.
func BenchmarkCreateFacts_1000(b *testing.B) {
	s := benchStore(b)
	r := rand.New(rand.NewPCG(1, 2))
	b.ReportAllocs()
	n := 0
	for b.Loop() {
		b.StopTimer()
		batch := make([]*holomem.Fact, 1000)
		for j := range batch {
			batch[j] = benchFact(r, n+j)
		}
		b.StartTimer()
		if _, err := s.CreateFacts(b.Context(), batch); err != nil {
			b.Fatal(err)
		}
		n += len(batch)
	}
	b.ReportMetric(float64(n)/b.Elapsed().Seconds(), "facts/s")
}

// fill stores n bench facts in batches of 1000.
func fill(b *testing.B, s *sqlite.Store, n int) {
	b.Helper()
	r := rand.New(rand.NewPCG(1, 2))
	for done := 0; done < n; {
		batch := make([]*holomem.Fact, min(1000, n-done))
		for j := range batch {
			batch[j] = benchFact(r, done+j)
		}
		if _, err := s.CreateFacts(b.Context(), batch); err != nil {
			b.Fatal(err)
		}
		done += len(batch)
	}
}

// BenchmarkSize_10k measures bytes on disk per fact at 10,000 realistic
// facts with a 1025-byte HRR each, after a checkpoint, indexes included.
func BenchmarkSize_10k(b *testing.B) {
	const n = 10_000
	var perFact float64
	for b.Loop() {
		dir := b.TempDir()
		path := filepath.Join(dir, "size.db")
		s, err := sqlite.Open(b.Context(), path)
		if err != nil {
			b.Fatal(err)
		}
		fill(b, s, n)
		if err := s.Checkpoint(b.Context()); err != nil {
			b.Fatal(err)
		}
		var size int64
		for _, suffix := range []string{"", "-wal"} {
			if fi, err := os.Stat(path + suffix); err == nil {
				size += fi.Size()
			}
		}
		perFact = float64(size) / n
		logTableSizes(b, path, n)
		s.Close()
	}
	b.ReportMetric(perFact, "bytes/fact")
}

// logTableSizes prints where the bytes go (the dbstat virtual table).
func logTableSizes(b *testing.B, path string, n int) {
	raw, err := sql.Open("sqlite", path)
	if err != nil {
		b.Fatal(err)
	}
	defer raw.Close()
	rows, err := raw.Query("SELECT name, sum(pgsize) FROM dbstat GROUP BY name ORDER BY sum(pgsize) DESC")
	if err != nil {
		b.Logf("dbstat: %v", err)
		return
	}
	defer rows.Close()
	var parts []string
	for rows.Next() {
		var name string
		var size int64
		if err := rows.Scan(&name, &size); err != nil {
			b.Fatal(err)
		}
		if size*10 >= int64(n) { // at least 0.1 byte per fact
			parts = append(parts, fmt.Sprintf("%s %.0f", name, float64(size)/float64(n)))
		}
	}
	b.Logf("bytes/fact by table: %s", strings.Join(parts, ", "))
}

// BenchmarkSearchText_10k runs full-text queries over 10,000 facts.
func BenchmarkSearchText_10k(b *testing.B) {
	s := benchStore(b)
	fill(b, s, 10_000)
	queries := []string{
		"deploy the service",                       // common words: many AND hits
		"Grafana alert latency",                    // entity plus words
		"postgres migration schema",                // relaxation likely
		"ошибка сервер",                            // Russian
		"max_conn_7",                               // identifier
		"kubernetes rotate secret cluster staging", // long, rare AND
	}
	for _, q := range queries {
		b.Run(strings.ReplaceAll(q, " ", "_"), func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				ms, err := s.SearchText(b.Context(), "", q, 30)
				if err != nil {
					b.Fatal(err)
				}
				sinkMatches = ms
			}
		})
	}
}

// BenchmarkCreateEdges_10k stores 10,000 new similar_to edges in one
// batch among 1,000 facts, as a graph build does.
func BenchmarkCreateEdges_10k(b *testing.B) {
	s := benchStore(b)
	fill(b, s, 1000)
	r := rand.New(rand.NewPCG(3, 4))
	b.ReportAllocs()
	n := 0
	for b.Loop() {
		b.StopTimer()
		if _, err := s.DeleteEdges(b.Context(), holomem.EdgeFilter{Kinds: []holomem.EdgeKind{holomem.EdgeSimilar}}); err != nil {
			b.Fatal(err)
		}
		seen := map[[2]int64]bool{}
		es := make([]*holomem.Edge, 0, 10_000)
		for len(es) < cap(es) {
			from, to := int64(1+r.IntN(1000)), int64(1+r.IntN(1000))
			if from == to || seen[[2]int64{from, to}] {
				continue
			}
			seen[[2]int64{from, to}] = true
			es = append(es, &holomem.Edge{From: from, To: to, Kind: holomem.EdgeSimilar, Weight: r.Float64(), Origin: holomem.OriginAuto})
		}
		b.StartTimer()
		if _, err := s.CreateEdges(b.Context(), es); err != nil {
			b.Fatal(err)
		}
		n += len(es)
	}
	b.ReportMetric(float64(n)/b.Elapsed().Seconds(), "edges/s")
}
