package embed_test

import (
	"context"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strconv"
	"sync"
	"testing"

	"github.com/holomem/holomem/internal/leaf/cputime"

	"github.com/holomem/holomem/embed"
)

var sink [][]float32

// benchModels caches generated real-shape models for the whole run: the
// MiniLM-L12 table alone is 384 MB.
var benchModels struct {
	sync.Mutex
	root string
	dirs map[string]string
}

// realShapeModel returns a directory holding a random model of the named
// real shape, generating it once per process under os.TempDir. Set
// HOLOMEM_BENCH_MODEL_DIR to reuse models across runs.
func realShapeModel(b *testing.B, name string) string {
	b.Helper()
	benchModels.Lock()
	defer benchModels.Unlock()
	if d, ok := benchModels.dirs[name]; ok {
		return d
	}
	root := os.Getenv("HOLOMEM_BENCH_MODEL_DIR")
	if root == "" {
		if benchModels.root == "" {
			r, err := os.MkdirTemp("", "embed-bench-")
			if err != nil {
				b.Fatal(err)
			}
			benchModels.root = r
		}
		root = benchModels.root
	}
	cfg := map[string]embed.Config{"L12": embed.MiniLML12Config, "L6": embed.MiniLML6Config}[name]
	dir := filepath.Join(root, name)
	if _, err := os.Stat(filepath.Join(dir, "model.safetensors")); err != nil {
		if err := embed.GenerateModel(dir, cfg, 1); err != nil {
			b.Fatal(err)
		}
	}
	if benchModels.dirs == nil {
		benchModels.dirs = map[string]string{}
	}
	benchModels.dirs[name] = dir
	return dir
}

// TestMain removes the models the benchmarks generated (unless they live in
// HOLOMEM_BENCH_MODEL_DIR).
func TestMain(m *testing.M) {
	code := m.Run()
	if benchModels.root != "" {
		os.RemoveAll(benchModels.root)
	}
	os.Exit(code)
}

func randomSeqs(n, tokens, vocab int) [][]int32 {
	rng := rand.New(rand.NewPCG(1, 2))
	out := make([][]int32, n)
	for i := range out {
		s := make([]int32, tokens)
		for j := range s {
			s[j] = 3 + rng.Int32N(int32(vocab-3))
		}
		out[i] = s
	}
	return out
}

// BenchmarkEmbedTokens reports time per call for one text of 10 or 60
// tokens and for batches of 32 texts, with 1 thread and 2, on random
// weights of the real MiniLM shapes.
//
//	go test -run '^$' -bench EmbedTokens -benchtime 2s ./embed/
func BenchmarkEmbedTokens(b *testing.B) {
	for _, model := range []string{"L12", "L6"} {
		for _, threads := range []int{1, 2} {
			for _, c := range []struct {
				texts, tokens int
			}{{1, 10}, {1, 60}, {32, 20}} {
				name := model + "/threads=" + itoa(threads) + "/texts=" + itoa(c.texts) + "/tokens=" + itoa(c.tokens)
				b.Run(name, func(b *testing.B) {
					dir := realShapeModel(b, model)
					e, err := embed.Open(dir, &embed.Options{Threads: threads})
					if err != nil {
						b.Fatal(err)
					}
					defer e.Close()
					in := randomSeqs(c.texts, c.tokens, e.Config().VocabSize)
					if sink, err = e.EmbedTokens(context.Background(), in); err != nil {
						b.Fatal(err)
					}
					b.ReportAllocs()
					cpu0 := cputime.Process().Seconds()
					b.ResetTimer()
					for range b.N {
						sink, _ = e.EmbedTokens(context.Background(), in)
					}
					b.StopTimer()
					b.ReportMetric(float64(b.Elapsed().Microseconds())/1000/float64(b.N*c.texts), "ms/text")
					// CPU time stays meaningful on a busy machine.
					b.ReportMetric((cputime.Process().Seconds()-cpu0)*1000/float64(b.N*c.texts), "cpu-ms/text")
				})
			}
		}
	}
}

// BenchmarkLoad measures Open + Load (header and shape checks, reading the
// encoder weights, and the tokenizer if the directory has one) of the
// real-shape MiniLM-L12 model.
func BenchmarkLoad(b *testing.B) {
	dir := realShapeModel(b, "L12")
	for _, threads := range []int{1, 2} {
		b.Run("threads="+itoa(threads), func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				e, err := embed.Open(dir, &embed.Options{Threads: threads})
				if err != nil {
					b.Fatal(err)
				}
				if err := e.Load(); err != nil && !e.Loaded() {
					b.Fatal(err)
				}
				e.Close()
			}
		})
	}
}

// BenchmarkReport prints embed.BenchReport for the real-shape models:
//
//	go test -run '^$' -bench Report -benchtime 1x -v ./embed/
func BenchmarkReport(b *testing.B) {
	for _, model := range []string{"L12", "L6"} {
		dir := realShapeModel(b, model)
		if err := embed.BenchReport(b.Context(), dir, os.Stdout); err != nil {
			b.Fatal(err)
		}
	}
}

func itoa(i int) string { return strconv.Itoa(i) }
