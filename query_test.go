package holomem_test

import (
	"errors"
	"math"
	"strings"
	"testing"

	"github.com/holomem/holomem"
)

func TestWeights_ValidateBounded(t *testing.T) {
	for _, w := range []holomem.Weights{
		{FTS: 1e308, Jaccard: 1e308, HRR: 1e308},
		{FTS: holomem.MaxWeight + 1},
		{FTS: -1},
	} {
		if err := w.Validate(); !errors.Is(err, holomem.ErrInvalid) {
			t.Errorf("%+v: err = %v, want ErrInvalid", w, err)
		}
	}
	if err := (holomem.Weights{FTS: holomem.MaxWeight, HRR: 1}).Validate(); err != nil {
		t.Errorf("max weight refused: %v", err)
	}
}

func TestValidateEntities(t *testing.T) {
	many := make([]string, holomem.MaxEntities+1)
	for i := range many {
		many[i] = "Alice"
	}
	for name, tc := range map[string]struct {
		ents  []string
		limit int
		ok    bool
	}{
		"ok":          {[]string{"Alice", "Bob"}, 10, true},
		"maxLimit":    {[]string{"Alice"}, holomem.MaxLimit, true},
		"hugeLimit":   {[]string{"Alice"}, 100000000, false},
		"negLimit":    {[]string{"Alice"}, -1, false},
		"tooMany":     {many, 10, false},
		"longName":    {[]string{strings.Repeat("a", holomem.MaxEntityBytes+1)}, 10, false},
		"invalidUTF8": {[]string{"\xff"}, 10, false},
	} {
		err := holomem.ValidateEntities(tc.ents, tc.limit)
		if tc.ok != (err == nil) || (err != nil && !errors.Is(err, holomem.ErrInvalid)) {
			t.Errorf("%s: err = %v", name, err)
		}
	}
}

func TestWeights_Normalized(t *testing.T) {
	tests := []struct {
		in, want holomem.Weights
	}{
		{holomem.Weights{FTS: 0.45, Jaccard: 0.30, HRR: 0.25, PPR: 4}, holomem.Weights{FTS: 0.09, Jaccard: 0.06, HRR: 0.05, PPR: 0.8}},
		{holomem.DefaultWeights(), holomem.DefaultWeights()},
		{holomem.Weights{FTS: 2, Semantic: 2}, holomem.Weights{FTS: 0.5, Semantic: 0.5}},
		{holomem.Weights{}, holomem.Weights{}},
	}
	for _, tt := range tests {
		got := tt.in.Normalized()
		for _, p := range [][2]float64{{got.FTS, tt.want.FTS}, {got.Jaccard, tt.want.Jaccard}, {got.HRR, tt.want.HRR}, {got.Semantic, tt.want.Semantic}, {got.PPR, tt.want.PPR}} {
			if math.Abs(p[0]-p[1]) > 1e-12 {
				t.Errorf("%+v.Normalized() = %+v, want %+v", tt.in, got, tt.want)
				break
			}
		}
	}
}
