package vec_test

import (
	"bytes"
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
	"slices"
	"sync"
	"testing"

	"github.com/holomem/holomem/vec"
)

func randUnit(rng *rand.Rand, n int) []float32 {
	v := make([]float32, n)
	for i := range v {
		v[i] = float32(rng.NormFloat64())
	}
	vec.Normalize(v)
	return v
}

func near(a, b float32) bool { return math.Abs(float64(a-b)) < 1e-5 }

func TestDot(t *testing.T) {
	tests := []struct {
		name string
		a, b []float32
		want float32
	}{
		{"Empty", nil, nil, 0},
		{"One", []float32{2}, []float32{3}, 6},
		{"Orthogonal", []float32{1, 0}, []float32{0, 1}, 0},
		{"Long", slices.Repeat([]float32{1}, 37), slices.Repeat([]float32{2}, 37), 74},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := vec.Dot(tt.a, tt.b); !near(got, tt.want) {
				t.Fatalf("Dot = %v, want %v", got, tt.want)
			}
		})
	}
	t.Run("PanicOnMismatch", func(t *testing.T) {
		defer func() {
			if recover() == nil {
				t.Fatal("no panic")
			}
		}()
		vec.Dot([]float32{1}, []float32{1, 2})
	})
}

func TestNormalizeCosine(t *testing.T) {
	v := []float32{3, 4}
	if got, want := vec.Normalize(v), float32(5); got != want {
		t.Fatalf("Normalize returned %v, want %v", got, want)
	}
	if got := vec.Norm(v); !near(got, 1) {
		t.Fatalf("Norm after Normalize = %v", got)
	}
	z := []float32{0, 0}
	if got := vec.Normalize(z); got != 0 || z[0] != 0 {
		t.Fatalf("zero vector: %v %v", got, z)
	}
	if got := vec.Cosine([]float32{1, 0}, []float32{2, 0}); !near(got, 1) {
		t.Fatalf("Cosine parallel = %v", got)
	}
	if got := vec.Cosine([]float32{1, 0}, []float32{0, 0}); got != 0 {
		t.Fatalf("Cosine with zero = %v", got)
	}
}

func TestCheckDim(t *testing.T) {
	tests := []struct {
		name string
		v    []float32
		want error
	}{
		{"OK", []float32{1, 2}, nil},
		{"ErrDim", []float32{1}, vec.ErrDim},
		{"ErrInvalidNaN", []float32{1, float32(math.NaN())}, vec.ErrInvalid},
		{"ErrInvalidInf", []float32{float32(math.Inf(1)), 1}, vec.ErrInvalid},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if err := vec.CheckDim(tt.v, 2); !errors.Is(err, tt.want) {
				t.Fatalf("err = %v, want %v", err, tt.want)
			}
		})
	}
}

func TestMarshal(t *testing.T) {
	v := []float32{1, -2.5, float32(math.Inf(-1)), 0}
	b := vec.Marshal(v)
	if got, want := len(b), 5+16; got != want {
		t.Fatalf("len = %d, want %d", got, want)
	}
	got, err := vec.Unmarshal(b)
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(got, v) {
		t.Fatalf("round trip %v, want %v", got, v)
	}
	for _, bad := range [][]byte{nil, {1, 0, 0}, {2, 0, 0, 0, 0}, {1, 1, 0, 0, 0}, {1, 255, 255, 255, 255}} {
		if _, err := vec.Unmarshal(bad); !errors.Is(err, vec.ErrCorrupt) {
			t.Fatalf("Unmarshal(%v) err = %v, want ErrCorrupt", bad, err)
		}
	}
}

func FuzzUnmarshal(f *testing.F) {
	f.Add(vec.Marshal([]float32{1, 2, 3}))
	f.Add(vec.Marshal(nil))
	f.Add([]byte{1, 2, 0, 0, 0, 1, 2, 3})
	f.Fuzz(func(t *testing.T, b []byte) {
		v, err := vec.Unmarshal(b)
		if err != nil {
			if !errors.Is(err, vec.ErrCorrupt) {
				t.Fatalf("error does not wrap ErrCorrupt: %v", err)
			}
			return
		}
		if got := vec.Marshal(v); !bytes.Equal(got, b) {
			t.Fatalf("re-encoding differs:\n%x\n%x", got, b)
		}
	})
}

// bruteForce ranks by a plain loop, independent of the Matrix code.
func bruteForce(ids []int64, vecs [][]float32, q []float32, k int, filter func(int64) bool) []vec.Result {
	var all []vec.Result
	for i, v := range vecs {
		if filter != nil && !filter(ids[i]) {
			continue
		}
		all = append(all, vec.Result{ID: ids[i], Score: vec.Dot(q, v)})
	}
	vec.SortResults(all)
	return all[:min(k, len(all))]
}

func TestMatrix_CRUD(t *testing.T) {
	m := vec.NewMatrix(3)
	if err := m.Add(7, []float32{1, 0, 0}); err != nil {
		t.Fatal(err)
	}
	t.Run("ErrExists", func(t *testing.T) {
		if err := m.Add(7, []float32{0, 1, 0}); !errors.Is(err, vec.ErrExists) {
			t.Fatalf("err = %v", err)
		}
	})
	t.Run("ErrDim", func(t *testing.T) {
		if err := m.Add(8, []float32{0, 1}); !errors.Is(err, vec.ErrDim) {
			t.Fatalf("Add err = %v", err)
		}
		if err := m.Set(8, []float32{0, 1, 0, 0}); !errors.Is(err, vec.ErrDim) {
			t.Fatalf("Set err = %v", err)
		}
		if _, err := m.Search([]float32{1}, 1, nil); !errors.Is(err, vec.ErrDim) {
			t.Fatalf("Search err = %v", err)
		}
		if _, err := m.SearchInt8([]float32{1}, 1, 0, nil); !errors.Is(err, vec.ErrDim) {
			t.Fatalf("SearchInt8 err = %v", err)
		}
	})
	t.Run("SetGetDelete", func(t *testing.T) {
		if err := m.Set(9, []float32{0, 0, 1}); err != nil {
			t.Fatal(err)
		}
		if err := m.Set(7, []float32{0, 1, 0}); err != nil {
			t.Fatal(err)
		}
		if got, _ := m.Get(7); !slices.Equal(got, []float32{0, 1, 0}) {
			t.Fatalf("Get(7) = %v", got)
		}
		if got, want := m.IDs(), []int64{7, 9}; !slices.Equal(got, want) {
			t.Fatalf("IDs = %v, want %v", got, want)
		}
		if !m.Delete(7) || m.Delete(7) {
			t.Fatal("Delete(7) twice should be true then false")
		}
		if m.Has(7) || !m.Has(9) || m.Len() != 1 {
			t.Fatalf("after delete: has7=%v has9=%v len=%d", m.Has(7), m.Has(9), m.Len())
		}
		if got, _ := m.Get(9); !slices.Equal(got, []float32{0, 0, 1}) {
			t.Fatalf("Get(9) after move = %v", got)
		}
	})
}

func TestMatrix_Search(t *testing.T) {
	const n, dim = 3000, 48
	rng := rand.New(rand.NewPCG(1, 2))
	m := vec.NewMatrix(dim)
	ids := make([]int64, n)
	vecs := make([][]float32, n)
	for i := range n {
		ids[i] = int64(rng.IntN(1 << 40))
		vecs[i] = randUnit(rng, dim)
		if err := m.Add(ids[i], vecs[i]); err != nil {
			t.Fatal(err)
		}
	}
	// Delete a few and re-add, to exercise the moved rows.
	for i := 0; i < n; i += 97 {
		m.Delete(ids[i])
		if err := m.Add(ids[i], vecs[i]); err != nil {
			t.Fatal(err)
		}
	}
	even := func(id int64) bool { return id%2 == 0 }
	for _, workers := range []int{1, 2, 5} {
		m.SetWorkers(workers)
		for qi := range 20 {
			q := randUnit(rng, dim)
			var filter func(int64) bool
			if qi%2 == 1 {
				filter = even
			}
			got, err := m.Search(q, 10, filter)
			if err != nil {
				t.Fatal(err)
			}
			want := bruteForce(ids, vecs, q, 10, filter)
			if len(got) != len(want) {
				t.Fatalf("workers=%d: %d results, want %d", workers, len(got), len(want))
			}
			for i := range got {
				if got[i].ID != want[i].ID {
					t.Fatalf("workers=%d q=%d rank %d: got %v, want %v", workers, qi, i, got[i], want[i])
				}
			}
		}
	}
	t.Run("KLargerThanN", func(t *testing.T) {
		small := vec.NewMatrix(2)
		_ = small.Add(1, []float32{1, 0})
		small.EnableInt8()
		got, _ := small.Search([]float32{1, 0}, 1<<50, nil)
		if len(got) != 1 {
			t.Fatalf("got %v", got)
		}
		got, _ = small.SearchInt8([]float32{1, 0}, 1<<50, 1<<50, nil)
		if len(got) != 1 {
			t.Fatalf("int8 got %v", got)
		}
	})
}

func TestMatrix_TiesByID(t *testing.T) {
	m := vec.NewMatrix(2)
	for _, id := range []int64{50, 3, 20, 10, 40} {
		_ = m.Add(id, []float32{1, 0})
	}
	m.EnableInt8()
	for _, search := range []func() ([]vec.Result, error){
		func() ([]vec.Result, error) { return m.Search([]float32{1, 0}, 3, nil) },
		func() ([]vec.Result, error) { return m.SearchInt8([]float32{1, 0}, 3, 1, nil) },
	} {
		got, err := search()
		if err != nil {
			t.Fatal(err)
		}
		var ids []int64
		for _, r := range got {
			ids = append(ids, r.ID)
		}
		if want := []int64{3, 10, 20}; !slices.Equal(ids, want) {
			t.Fatalf("ids = %v, want %v", ids, want)
		}
	}
}

func TestMatrix_SearchInt8(t *testing.T) {
	const n, dim, k = 4000, 384, 10
	rng := rand.New(rand.NewPCG(7, 8))
	m := vec.NewMatrix(dim)
	// Clustered data makes int8 rounding matter more than uniform data.
	centres := make([][]float32, 40)
	for i := range centres {
		centres[i] = randUnit(rng, dim)
	}
	for i := range n {
		v := slices.Clone(centres[i%len(centres)])
		noise := randUnit(rng, dim)
		for j := range v {
			v[j] += 0.6 * noise[j]
		}
		vec.Normalize(v)
		_ = m.Add(int64(i), v)
	}
	m.EnableInt8()
	// Maintained through writes after enabling.
	_ = m.Set(int64(n), randUnit(rng, dim))
	m.Delete(0)
	hits, total := 0, 0
	for range 30 {
		q := slices.Clone(centres[rng.IntN(len(centres))])
		noise := randUnit(rng, dim)
		for j := range q {
			q[j] += 0.6 * noise[j]
		}
		vec.Normalize(q)
		exact, _ := m.Search(q, k, nil)
		approx, err := m.SearchInt8(q, k, 0, nil)
		if err != nil {
			t.Fatal(err)
		}
		set := map[int64]bool{}
		for _, r := range exact {
			set[r.ID] = true
		}
		for i, r := range approx {
			if set[r.ID] {
				hits++
			}
			if i > 0 && vec.Better(r, approx[i-1]) {
				t.Fatalf("not sorted: %v", approx)
			}
		}
		total += len(exact)
	}
	if recall := float64(hits) / float64(total); recall < 0.99 {
		t.Fatalf("int8+rescore recall@%d = %.3f, want >= 0.99", k, recall)
	}
}

func TestMatrix_Concurrent(t *testing.T) {
	const dim = 16
	m := vec.NewMatrix(dim)
	m.EnableInt8()
	var wg sync.WaitGroup
	for g := range 4 {
		wg.Go(func() {
			rng := rand.New(rand.NewPCG(uint64(g), 9))
			for i := range 300 {
				id := int64(g*1000 + i)
				_ = m.Set(id, randUnit(rng, dim))
				if i%3 == 0 {
					m.Delete(id - 1)
				}
				if _, err := m.Search(randUnit(rng, dim), 5, nil); err != nil {
					t.Error(err)
				}
				if _, err := m.SearchInt8(randUnit(rng, dim), 5, 2, nil); err != nil {
					t.Error(err)
				}
			}
		})
	}
	wg.Wait()
	if got := len(m.IDs()); got != m.Len() {
		t.Fatalf("IDs %d vs Len %d", got, m.Len())
	}
}

func ExampleMatrix_Search() {
	m := vec.NewMatrix(2)
	_ = m.Add(1, []float32{1, 0})
	_ = m.Add(2, []float32{0.6, 0.8})
	_ = m.Add(3, []float32{0, 1})
	res, err := m.Search([]float32{0, 1}, 2, nil)
	if err != nil {
		fmt.Println(err)
		return
	}
	for _, r := range res {
		fmt.Printf("%d %.1f\n", r.ID, r.Score)
	}
	// Output:
	// 3 1.0
	// 2 0.8
}
