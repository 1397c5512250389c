package annbench_test

import (
	"bytes"
	"errors"
	"math"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/holomem/holomem/internal/bench/annbench"
	"github.com/holomem/holomem/vec"
)

func TestFvecs_RoundTrip(t *testing.T) {
	vecs := [][]float32{{1, 2, 3}, {-1, float32(math.Inf(1)), 0.5}}
	var buf bytes.Buffer
	if err := annbench.WriteFvecs(&buf, vecs); err != nil {
		t.Fatal(err)
	}
	if got, want := buf.Len(), 2*(4+12); got != want {
		t.Fatalf("size %d, want %d", got, want)
	}
	got, err := annbench.ReadFvecs(bytes.NewReader(buf.Bytes()), 0)
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(got, vecs) {
		t.Fatalf("got %v, want %v", got, vecs)
	}
	got, _ = annbench.ReadFvecs(bytes.NewReader(buf.Bytes()), 1)
	if len(got) != 1 {
		t.Fatalf("limit 1 read %d vectors", len(got))
	}
}

func TestFvecs_Errors(t *testing.T) {
	tests := []struct {
		name string
		data []byte
	}{
		{"ShortHeader", []byte{3, 0}},
		{"ZeroDim", []byte{0, 0, 0, 0}},
		{"NegativeDim", []byte{255, 255, 255, 255}},
		{"HugeDim", []byte{0, 0, 0, 1}},
		{"ShortBody", []byte{2, 0, 0, 0, 1, 2, 3, 4}},
		{"MixedDims", append(fvecs(t, [][]float32{{1}}), fvecs(t, [][]float32{{1, 2}})...)},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if _, err := annbench.ReadFvecs(bytes.NewReader(tt.data), 0); !errors.Is(err, annbench.ErrFormat) {
				t.Fatalf("err = %v, want ErrFormat", err)
			}
		})
	}
	if err := annbench.WriteFvecs(&bytes.Buffer{}, [][]float32{{1}, {1, 2}}); !errors.Is(err, annbench.ErrFormat) {
		t.Fatalf("WriteFvecs mixed dims err = %v", err)
	}
}

func fvecs(tb testing.TB, v [][]float32) []byte {
	tb.Helper()
	var buf bytes.Buffer
	if err := annbench.WriteFvecs(&buf, v); err != nil {
		tb.Fatal(err)
	}
	return buf.Bytes()
}

func FuzzReadFvecs(f *testing.F) {
	f.Add(fvecs(f, [][]float32{{1, 2}, {3, 4}}))
	f.Add([]byte{1, 0, 0, 0, 0, 0, 128, 63})
	f.Add([]byte{})
	f.Fuzz(func(t *testing.T, b []byte) {
		v, err := annbench.ReadFvecs(bytes.NewReader(b), 0)
		if err != nil {
			if !errors.Is(err, annbench.ErrFormat) {
				t.Fatalf("error does not wrap ErrFormat: %v", err)
			}
			return
		}
		if len(v) == 0 {
			return
		}
		var buf bytes.Buffer
		if err := annbench.WriteFvecs(&buf, v); err != nil {
			t.Fatal(err)
		}
		if !bytes.Equal(buf.Bytes(), b) {
			t.Fatal("re-encoding differs")
		}
	})
}

func TestSynthetic(t *testing.T) {
	for _, dist := range []string{"uniform", "clustered"} {
		a := annbench.Synthetic(dist, 5000, 16, 10, 0.75, 3)
		b := annbench.Synthetic(dist, 5000, 16, 10, 0.75, 3)
		if !reflect.DeepEqual(a, b) {
			t.Fatalf("%s: not deterministic", dist)
		}
		for _, v := range a {
			if n := vec.Norm(v); math.Abs(float64(n)-1) > 1e-4 {
				t.Fatalf("%s: norm %v", dist, n)
			}
		}
	}
	// Clustered data is much more self-similar than uniform data.
	c := annbench.Synthetic("clustered", 400, 64, 4, 0.75, 1)
	u := annbench.Synthetic("uniform", 400, 64, 4, 0.75, 1)
	var sc, su float32
	for i := 1; i < len(c); i++ {
		sc += vec.Dot(c[0], c[i])
		su += vec.Dot(u[0], u[i])
	}
	if sc <= su+10 {
		t.Fatalf("clustered mean cosine not above uniform: %v vs %v", sc, su)
	}
}

func TestRun(t *testing.T) {
	t.Run("Synthetic", func(t *testing.T) {
		var out bytes.Buffer
		err := annbench.Run(t.Context(), annbench.Options{
			N: 1500, Dim: 32, Queries: 20, Centres: 30, EfSweep: []int{16, 64},
		}, &out)
		if err != nil {
			t.Fatal(err)
		}
		s := out.String()
		for _, want := range []string{"recall@10", "exact f32 p50", "int8+rescore p50", "RSS MB", "index B/vec", "visits/query", "clustered"} {
			if !strings.Contains(s, want) {
				t.Fatalf("output lacks %q:\n%s", want, s)
			}
		}
	})
	t.Run("Files", func(t *testing.T) {
		dir := t.TempDir()
		base := annbench.Synthetic("clustered", 600, 24, 20, 0.75, 5)
		q := annbench.Synthetic("clustered", 10, 24, 20, 0.75, 6)
		bp, qp := filepath.Join(dir, "base.fvecs"), filepath.Join(dir, "q.fvecs")
		if err := os.WriteFile(bp, fvecs(t, base), 0o600); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(qp, fvecs(t, q), 0o600); err != nil {
			t.Fatal(err)
		}
		var out bytes.Buffer
		if err := annbench.Run(t.Context(), annbench.Options{BaseFile: bp, QueryFile: qp}, &out); err != nil {
			t.Fatal(err)
		}
		if !strings.Contains(out.String(), " file ") {
			t.Fatalf("output:\n%s", out.String())
		}
		if err := annbench.Run(t.Context(), annbench.Options{BaseFile: filepath.Join(dir, "missing")}, &out); !errors.Is(err, os.ErrNotExist) {
			t.Fatalf("missing file err = %v", err)
		}
	})
	t.Run("ErrOptions", func(t *testing.T) {
		for _, o := range []annbench.Options{{Dist: "gaussian"}, {N: -1}, {QueryFile: "q.fvecs"}} {
			if err := annbench.Run(t.Context(), o, &bytes.Buffer{}); !errors.Is(err, annbench.ErrOptions) {
				t.Fatalf("%+v: err = %v", o, err)
			}
		}
	})
}

func TestParseInts(t *testing.T) {
	got, err := annbench.ParseInts("16, 32,,64")
	if err != nil || !reflect.DeepEqual(got, []int{16, 32, 64}) {
		t.Fatalf("got %v, %v", got, err)
	}
	if _, err := annbench.ParseInts("8,x"); !errors.Is(err, annbench.ErrOptions) {
		t.Fatalf("err = %v", err)
	}
}
