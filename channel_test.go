package holomem_test

import (
	"encoding/json"
	"errors"
	"math"
	"strings"
	"testing"

	"github.com/holomem/holomem"
)

// The JSON of weights and scores keeps the shape it had as structs:
// every channel that runs on every query, in the table's order, and ppr
// and time only when set.
func TestWeights_JSONShape(t *testing.T) {
	tests := []struct {
		name string
		in   any
		want string
	}{
		{"defaults", holomem.DefaultWeights(), `{"fts":0.55,"jaccard":0,"hrr":0.15,"semantic":0.3}`},
		{"nil", holomem.Weights(nil), `{"fts":0,"jaccard":0,"hrr":0,"semantic":0}`},
		{"ppr", holomem.Weights{holomem.ChannelFTS: 0.2, holomem.ChannelPPR: 0.8, holomem.ChannelTime: 0}, `{"fts":0.2,"jaccard":0,"hrr":0,"semantic":0,"ppr":0.8}`},
		{"scores", holomem.Scores{holomem.ChannelTime: 0.5, holomem.ChannelHRR: 1}, `{"fts":0,"jaccard":0,"hrr":1,"semantic":0,"time":0.5}`},
		{"in a result", holomem.Result{Hits: []holomem.Hit{{Scores: holomem.Scores{holomem.ChannelFTS: 1}}}, Weights: holomem.Weights{holomem.ChannelFTS: 1}},
			`{"hits":[{"fact":null,"score":0,"relevance":0,"decay":0,"scores":{"fts":1,"jaccard":0,"hrr":0,"semantic":0}}],"namespace":"","channels":null,"weights":{"fts":1,"jaccard":0,"hrr":0,"semantic":0}}`},
	}
	for _, tt := range tests {
		b, err := json.Marshal(tt.in)
		if err != nil {
			t.Fatal(err)
		}
		if string(b) != tt.want {
			t.Errorf("%s: %s, want %s", tt.name, b, tt.want)
		}
	}
}

// Weights are read from a query's JSON as the struct read them (names in
// any case), and a name that is no channel is refused.
func TestWeights_UnmarshalJSON(t *testing.T) {
	var q holomem.Query
	if err := json.Unmarshal([]byte(`{"text":"x","weights":{"FTS":0.5,"hrr":0.5,"ppr":2}}`), &q); err != nil {
		t.Fatal(err)
	}
	want := holomem.Weights{holomem.ChannelFTS: 0.5, holomem.ChannelHRR: 0.5, holomem.ChannelPPR: 2}
	if q.Weights == nil || !q.Weights.Equal(want) {
		t.Errorf("weights = %v, want %v", q.Weights, want)
	}
	for _, body := range []string{`{"weights":{"fts":1,"bm42":1}}`, `{"weights":{"fts":"high"}}`, `{"weights":[1]}`} {
		err := json.Unmarshal([]byte(body), &q)
		if !errors.Is(err, holomem.ErrInvalid) {
			t.Errorf("%s: err = %v, want ErrInvalid", body, err)
		}
	}
	if err := json.Unmarshal([]byte(`{"weights":{"bm42":1}}`), &q); err == nil || !strings.Contains(err.Error(), `unknown channel "bm42"`) {
		t.Errorf("unknown channel: %v", err)
	}
	if err := (holomem.Weights{"bm42": 1}).Validate(); !errors.Is(err, holomem.ErrInvalid) {
		t.Errorf("Validate of an unknown channel: %v", err)
	}
}

func TestWeights_Redistribute(t *testing.T) {
	got := holomem.DefaultWeights().Redistribute(false, true)
	if math.Abs(got[holomem.ChannelFTS]-0.55/0.7) > 1e-12 || math.Abs(got[holomem.ChannelHRR]-0.15/0.7) > 1e-12 || got[holomem.ChannelSemantic] != 0 {
		t.Errorf("without a model: %v", got)
	}
	spec, _ := holomem.LookupChannel(holomem.ChannelFTS)
	if spec.DefaultWeight(true) != 0.55 || spec.DefaultWeight(false) != got[holomem.ChannelFTS] {
		t.Errorf("fts default weight %v / %v", spec.DefaultWeight(true), spec.DefaultWeight(false))
	}
	w := holomem.Weights{holomem.ChannelFTS: 1, holomem.ChannelHRR: 1, holomem.ChannelPPR: 4}
	if got := w.Redistribute(true, false); got[holomem.ChannelFTS] != 2 || got[holomem.ChannelHRR] != 0 || got[holomem.ChannelPPR] != 4 {
		t.Errorf("without hrr: %v (ppr is occasional and keeps its weight)", got)
	}
	if w[holomem.ChannelFTS] != 1 || w[holomem.ChannelHRR] != 1 {
		t.Errorf("Redistribute changed its receiver: %v", w)
	}
}

func TestParseWeights(t *testing.T) {
	w, err := holomem.ParseWeights("fts=0.5, Jaccard=0.3,hrr=0.2")
	if err != nil || !w.Equal(holomem.Weights{holomem.ChannelFTS: 0.5, holomem.ChannelJaccard: 0.3, holomem.ChannelHRR: 0.2}) {
		t.Errorf("= %v, %v", w, err)
	}
	for _, s := range []string{"fts", "fts=x", "bm42=1", "fts=0", "fts=-1"} {
		if _, err := holomem.ParseWeights(s); !errors.Is(err, holomem.ErrInvalid) {
			t.Errorf("%q: err = %v, want ErrInvalid", s, err)
		}
	}
}

// Explanations list the table's channels: the ones that run on every
// query always, ppr and time when they count.
func TestExplain(t *testing.T) {
	s := holomem.Scores{holomem.ChannelFTS: 0.9125, holomem.ChannelHRR: 0.25, holomem.ChannelTime: 0.5}
	if got, want := s.Explain(), "fts 0.912  jaccard 0.000  hrr 0.250  semantic 0.000  time 0.500"; got != want {
		t.Errorf("scores: %q, want %q", got, want)
	}
	w := holomem.Weights{holomem.ChannelFTS: 0.79, holomem.ChannelHRR: 0.21}
	if got, want := w.Explain(true), "fts 0.79 jaccard 0.00 hrr 0.21 semantic 0.00 ppr 0.00 time 0.00"; got != want {
		t.Errorf("weights: %q, want %q", got, want)
	}
	if got, want := w.Explain(false), "fts 0.79 jaccard 0.00 hrr 0.21 semantic 0.00"; got != want {
		t.Errorf("weights: %q, want %q", got, want)
	}
}

func TestRegisterChannel_refused(t *testing.T) {
	for _, c := range []holomem.ChannelSpec{{Name: ""}, {Name: "Length"}, {Name: "a,b"}, {Name: "x", Weight: -1}, {Name: holomem.ChannelFTS}} {
		if _, err := holomem.RegisterChannel(c); err == nil {
			t.Errorf("%+v registered", c)
		}
	}
	unregister, err := holomem.RegisterChannel(holomem.ChannelSpec{Name: "length", Weight: 0.1})
	if err != nil {
		t.Fatal(err)
	}
	if !holomem.DefaultWeights().Equal(holomem.Weights{holomem.ChannelFTS: 0.55, holomem.ChannelHRR: 0.15, holomem.ChannelSemantic: 0.3, "length": 0.1}) {
		t.Errorf("defaults with a channel registered: %v", holomem.DefaultWeights())
	}
	unregister()
	if _, ok := holomem.LookupChannel("length"); ok {
		t.Error("channel still registered")
	}
}
