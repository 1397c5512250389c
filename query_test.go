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
		{holomem.ChannelFTS: 1e308, holomem.ChannelJaccard: 1e308, holomem.ChannelHRR: 1e308},
		{holomem.ChannelFTS: holomem.MaxWeight + 1},
		{holomem.ChannelFTS: -1},
	} {
		if err := w.Validate(); !errors.Is(err, holomem.ErrInvalid) {
			t.Errorf("%+v: err = %v, want ErrInvalid", w, err)
		}
	}
	if err := (holomem.Weights{holomem.ChannelFTS: holomem.MaxWeight, holomem.ChannelHRR: 1}).Validate(); err != nil {
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
		{holomem.Weights{holomem.ChannelFTS: 0.45, holomem.ChannelJaccard: 0.30, holomem.ChannelHRR: 0.25, holomem.ChannelPPR: 4}, holomem.Weights{holomem.ChannelFTS: 0.09, holomem.ChannelJaccard: 0.06, holomem.ChannelHRR: 0.05, holomem.ChannelPPR: 0.8}},
		{holomem.DefaultWeights(), holomem.DefaultWeights()},
		{holomem.Weights{holomem.ChannelFTS: 2, holomem.ChannelSemantic: 2}, holomem.Weights{holomem.ChannelFTS: 0.5, holomem.ChannelSemantic: 0.5}},
		{holomem.Weights{}, holomem.Weights{}},
	}
	for _, tt := range tests {
		got := tt.in.Normalized()
		for _, c := range holomem.Channels() {
			if math.Abs(got[c.Name]-tt.want[c.Name]) > 1e-12 {
				t.Errorf("%+v.Normalized() = %+v, want %+v", tt.in, got, tt.want)
				break
			}
		}
	}
}
