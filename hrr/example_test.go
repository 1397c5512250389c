package hrr_test

import (
	"fmt"

	"github.com/holomem/holomem/hrr"
)

func Example() {
	facts := []hrr.Item{
		{ID: 1, HRR: hrr.Marshal(hrr.EncodeFact([]string{"deploy", "nginx", "before", "api"}, []string{"nginx", "api"}))},
		{ID: 2, HRR: hrr.Marshal(hrr.EncodeFact([]string{"api", "uses", "postgres"}, []string{"api", "postgres"}))},
		{ID: 3, HRR: hrr.Marshal(hrr.EncodeFact([]string{"weather", "is", "nice"}, nil))},
	}
	floor := hrr.NoiseFloor(hrr.DefaultSigmas)

	for _, s := range hrr.Probe(hrr.ProbeKey("api"), facts, floor, 10) {
		fmt.Println("probe api:", s.ID)
	}
	keys := []*hrr.Key{hrr.ProbeKey("api"), hrr.ProbeKey("postgres")}
	for _, s := range hrr.Reason(keys, facts, floor, 10) {
		fmt.Println("reason api+postgres:", s.ID)
	}
	for _, c := range hrr.Related("nginx", facts, []string{"nginx", "api", "postgres"}, floor, 10) {
		fmt.Println("related nginx:", c.Entity, c.Facts)
	}
	// Output:
	// probe api: 1
	// probe api: 2
	// reason api+postgres: 2
	// related nginx: api 1
}
