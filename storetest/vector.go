package storetest

import (
	"errors"
	"slices"
	"testing"

	"github.com/holomem/holomem"
)

func testEmbeddings(t *testing.T, s holomem.Store) {
	ctx := t.Context()
	a := create(t, s, fact("one"))
	b := create(t, s, fact("two"))
	c := create(t, s, &holomem.Fact{Content: "three", Namespace: "team"})
	d := create(t, s, &holomem.Fact{Content: "four", ModelID: "m1", Embedding: []float32{0, 0, 4}})
	if err := s.SetEmbeddings(ctx, "m1", map[int64][]float32{a.ID: {1, 0, 0}, c.ID: {0, 0, 1}, 9999: {1, 1, 1}}); err != nil {
		t.Fatal(err)
	}
	if err := s.SetEmbeddings(ctx, "m2", map[int64][]float32{b.ID: {0.5, 0.5}}); err != nil {
		t.Fatal(err)
	}
	scan := func(ns, model string) map[int64][]float32 {
		out := map[int64][]float32{}
		var last int64
		err := s.ScanEmbeddings(ctx, ns, model, func(id int64, v []float32) error {
			if id <= last {
				t.Errorf("ScanEmbeddings not in id order: %d after %d", id, last)
			}
			last = id
			out[id] = slices.Clone(v)
			return nil
		})
		if err != nil {
			t.Fatal(err)
		}
		return out
	}
	if got := scan("", "m1"); len(got) != 3 || !slices.Equal(got[a.ID], []float32{1, 0, 0}) || !slices.Equal(got[c.ID], []float32{0, 0, 1}) || !slices.Equal(got[d.ID], []float32{0, 0, 4}) {
		t.Errorf("m1 in all namespaces = %v", got)
	}
	if got := scan(holomem.DefaultNamespace, "m1"); len(got) != 2 || got[c.ID] != nil {
		t.Errorf("m1 in default = %v", got)
	}
	if got := scan("", "m2"); len(got) != 1 || !slices.Equal(got[b.ID], []float32{0.5, 0.5}) {
		t.Errorf("m2 = %v", got)
	}
	if got := scan("", "m3"); len(got) != 0 {
		t.Errorf("unknown model = %v", got)
	}
	// Re-embedding with another model moves the fact to that model.
	if err := s.SetEmbeddings(ctx, "m2", map[int64][]float32{a.ID: {0.1, 0.2}}); err != nil {
		t.Fatal(err)
	}
	if got := scan("", "m1"); got[a.ID] != nil {
		t.Errorf("old model's vector still returned: %v", got)
	}
	if got := scan("", "m2"); !slices.Equal(got[a.ID], []float32{0.1, 0.2}) {
		t.Errorf("new model's vector = %v", got)
	}
	// An error from fn stops the scan.
	stop := errors.New("stop")
	n := 0
	err := s.ScanEmbeddings(ctx, "", "m2", func(int64, []float32) error { n++; return stop })
	if !errors.Is(err, stop) || n != 1 {
		t.Errorf("ScanEmbeddings with failing fn = %v after %d calls", err, n)
	}
	st, err := s.Stats(ctx, "")
	if err != nil || st.Models["m1"] != 2 || st.Models["m2"] != 2 {
		t.Errorf("Stats.Models = %v, %v", st.Models, err)
	}
}

func testEmbeddingsErrors(t *testing.T, s holomem.Store) {
	ctx := t.Context()
	f := create(t, s, fact("x"))
	nan := float32(0)
	nan = nan / nan
	for name, tc := range map[string]struct {
		model string
		v     []float32
	}{
		"EmptyModel":  {"", []float32{1}},
		"EmptyVector": {"m", nil},
		"NaN":         {"m", []float32{nan}},
	} {
		err := s.SetEmbeddings(ctx, tc.model, map[int64][]float32{f.ID: tc.v})
		wantErr(t, name, err, holomem.ErrInvalid)
	}
	if err := s.SetEmbeddings(ctx, "m", nil); err != nil {
		t.Errorf("SetEmbeddings(nil) = %v", err)
	}
}

func testScanHRR(t *testing.T, s holomem.Store) {
	ctx := t.Context()
	a := create(t, s, &holomem.Fact{Content: "a", HRR: []byte{1, 2}})
	create(t, s, fact("no vector"))
	c := create(t, s, &holomem.Fact{Content: "c", HRR: []byte{3}, Namespace: "team"})
	d := create(t, s, &holomem.Fact{Content: "d", HRR: []byte{4}})
	type item struct {
		id int64
		v  string
	}
	scan := func(ns string) []item {
		var out []item
		if err := s.ScanHRR(ctx, ns, false, func(id int64, v []byte) error {
			out = append(out, item{id, string(v)})
			return nil
		}); err != nil {
			t.Fatal(err)
		}
		return out
	}
	if got, want := scan(holomem.DefaultNamespace), []item{{a.ID, "\x01\x02"}, {d.ID, "\x04"}}; !slices.Equal(got, want) {
		t.Errorf("ScanHRR(default) = %v, want %v", got, want)
	}
	if got, want := scan(""), []item{{a.ID, "\x01\x02"}, {c.ID, "\x03"}, {d.ID, "\x04"}}; !slices.Equal(got, want) {
		t.Errorf("ScanHRR(all) = %v, want %v", got, want)
	}
	if _, err := s.UpdateFact(ctx, a.ID, holomem.FactUpdate{HRR: []byte{5}}); err != nil {
		t.Fatal(err)
	}
	if got := scan(holomem.DefaultNamespace); got[0].v != "\x05" {
		t.Errorf("HRR after UpdateFact = %v", got)
	}
	st, _ := s.Stats(ctx, "")
	if st.WithoutHRR != 1 {
		t.Errorf("WithoutHRR = %d, want 1", st.WithoutHRR)
	}
}
