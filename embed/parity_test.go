package embed_test

import (
	"encoding/json"
	"errors"
	"math"
	"os"
	"path/filepath"
	"testing"

	"github.com/holomem/holomem"
	"github.com/holomem/holomem/embed"
)

// reference is testdata/<model>/reference.json, written by
// scripts/onnx-ref (ONNX Runtime on an ONNX graph built from the same
// safetensors file; see scripts/onnx-ref/README.md).
type reference struct {
	Generator string `json:"generator"`
	Batches   []struct {
		Sequences [][]int32   `json:"sequences"`
		Vectors   [][]float32 `json:"vectors"`
	} `json:"batches"`
}

func readReference(tb testing.TB, dir string) reference {
	tb.Helper()
	data, err := os.ReadFile(filepath.Join(dir, "reference.json"))
	if err != nil {
		tb.Fatal(err)
	}
	var ref reference
	if err := json.Unmarshal(data, &ref); err != nil {
		tb.Fatal(err)
	}
	return ref
}

// TestEmbedder_ONNXParity checks the forward pass against ONNX Runtime on
// the tiny models, with every kernel set, one and several threads, and
// every batch both as given (padded there) and one sequence at a time.
func TestEmbedder_ONNXParity(t *testing.T) {
	for _, model := range []string{"tiny", "tiny-bert"} {
		dir := filepath.Join("testdata", model)
		ref := readReference(t, dir)
		for _, tc := range []struct {
			name    string
			kernels string // "" with noSIMD: the pure-Go set by Options.NoSIMD
			noSIMD  bool
			threads int
		}{
			{"AVX512", "avx512", false, 1},
			{"AVX2", "avx2", false, 1},
			{"Go", "", true, 1},
			{"AVX512Threads", "avx512", false, 3},
			{"AVX2Threads", "avx2", false, 3},
			{"GoThreads", "go", false, 3},
		} {
			t.Run(model+"/"+tc.name, func(t *testing.T) {
				e, err := embed.Open(dir, &embed.Options{NoSIMD: tc.noSIMD, Kernels: tc.kernels, Threads: tc.threads})
				if errors.Is(err, holomem.ErrInvalid) && tc.kernels != "" && tc.kernels != "go" {
					t.Skipf("no %s kernels on this CPU or build: %v", tc.kernels, err)
				}
				if err != nil {
					t.Fatal(err)
				}
				defer e.Close()
				worstCos, worstDiff := 1.0, 0.0
				for bi, b := range ref.Batches {
					got, err := e.EmbedTokens(t.Context(), b.Sequences)
					if err != nil {
						t.Fatal(err)
					}
					for i, want := range b.Vectors {
						single, err := e.EmbedTokens(t.Context(), b.Sequences[i:i+1])
						if err != nil {
							t.Fatal(err)
						}
						for _, g := range [][]float32{got[i], single[0]} {
							cos, diff := compare(g, want)
							worstCos, worstDiff = min(worstCos, cos), max(worstDiff, diff)
							if cos < 0.9999 || diff > 1e-4 {
								t.Errorf("batch %d seq %d (%d tokens): cosine %.7f, max abs diff %.2e", bi, i, len(b.Sequences[i]), cos, diff)
							}
						}
					}
				}
				t.Logf("%s kernels=%s: worst cosine %.8f, worst max abs diff %.2e", model, e.Kernels(), worstCos, worstDiff)
			})
		}
	}
}

func compare(a, b []float32) (cos, maxDiff float64) {
	var dot, na, nb float64
	for i := range a {
		dot += float64(a[i]) * float64(b[i])
		na += float64(a[i]) * float64(a[i])
		nb += float64(b[i]) * float64(b[i])
		maxDiff = max(maxDiff, math.Abs(float64(a[i]-b[i])))
	}
	if len(a) != len(b) {
		return 0, math.Inf(1)
	}
	return dot / math.Sqrt(na*nb), maxDiff
}
