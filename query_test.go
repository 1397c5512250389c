package holomem_test

import (
	"errors"
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
