package embed

import (
	"path/filepath"
	"runtime"
	"testing"
)

// TestScratch_Reuse checks how a model keeps its activation memory: one
// fwdScratch per concurrent pass, grown in granules of scratchRound tokens
// only when a pass needs more, kept for smaller passes, released on close;
// and that reusing it (with inter sharing q, k, v and ctx) gives every
// pass the vectors a fresh model gives.
func TestScratch_Reuse(t *testing.T) {
	dir := filepath.Join("testdata", "tiny")
	cfg, err := ReadConfig(dir)
	if err != nil {
		t.Fatal(err)
	}
	seq := func(n int) []int32 {
		s := make([]int32, n)
		for i := range s {
			s[i] = int32(3 + (i*37)%990)
		}
		return s
	}
	m, err := loadModel(dir, cfg, defaultKernels(), 1)
	if err != nil {
		t.Fatal(err)
	}
	defer m.close()
	for _, tc := range []struct {
		name       string
		lens       []int
		wantTokens int // capacity after the pass
	}{
		{"small", []int{5}, scratchRound},
		{"fills a granule", []int{30, 34}, scratchRound},
		{"grows", []int{30, 30, 30}, 2 * scratchRound},
		{"smaller again keeps it", []int{3, 4}, 2 * scratchRound},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var seqs [][]int32
			for _, n := range tc.lens {
				seqs = append(seqs, seq(n))
			}
			got, err := m.forward(t.Context(), seqs)
			if err != nil {
				t.Fatal(err)
			}
			if len(m.scratch) != 1 {
				t.Fatalf("%d idle scratches after a pass, want 1", len(m.scratch))
			}
			if sc := m.scratch[0]; sc.tokens != tc.wantTokens {
				t.Errorf("room for %d tokens, want %d", sc.tokens, tc.wantTokens)
			}
			fresh, err := loadModel(dir, cfg, defaultKernels(), 1)
			if err != nil {
				t.Fatal(err)
			}
			want, err := fresh.forward(t.Context(), seqs)
			fresh.close()
			if err != nil {
				t.Fatal(err)
			}
			for i := range got {
				for j := range got[i] {
					if got[i][j] != want[i][j] {
						t.Fatalf("seq %d dim %d: %g after reuse, %g fresh", i, j, got[i][j], want[i][j])
					}
				}
			}
		})
	}
	sc := m.scratch[0]
	if err := m.close(); err != nil {
		t.Fatal(err)
	}
	if m.scratch != nil || sc.mem != nil || sc.x != nil || sc.tokens != 0 {
		t.Errorf("close kept activation memory: %d idle, %d tokens", len(m.scratch), sc.tokens)
	}
}

// TestScratch_IdleCap checks that a burst of concurrent passes leaves at
// most GOMAXPROCS idle scratches, and that the ones dropped give their
// memory back.
func TestScratch_IdleCap(t *testing.T) {
	var m model
	defer m.close()
	n := runtime.GOMAXPROCS(0)
	var held []*fwdScratch
	for range n + 2 {
		sc := m.getScratch()
		sc.reserve(10, 8, 32)
		held = append(held, sc)
	}
	for _, sc := range held {
		m.putScratch(sc)
	}
	if len(m.scratch) != n {
		t.Fatalf("%d idle scratches, want GOMAXPROCS = %d", len(m.scratch), n)
	}
	for _, sc := range held[n:] {
		if sc.tokens != 0 || sc.x != nil {
			t.Errorf("a dropped scratch kept room for %d tokens", sc.tokens)
		}
	}
	for _, sc := range held[:n] {
		if sc.tokens != scratchRound {
			t.Errorf("a kept scratch has room for %d tokens, want %d", sc.tokens, scratchRound)
		}
	}
}
