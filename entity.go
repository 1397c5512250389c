package holomem

// Entity is a name extracted from facts: a capitalised phrase, a quoted
// string, a #tag, an issue reference, a file path or a code identifier.
// Aliases ("X aka Y") resolve to the same entity.
type Entity struct {
	ID        int64    `json:"id"`
	Namespace string   `json:"namespace"`
	Name      string   `json:"name"`
	Aliases   []string `json:"aliases,omitempty"`
	FactCount int      `json:"fact_count"`
}

// EntityHit is an entity found by [Memory.Related], with how strongly it is
// connected to the probed one.
type EntityHit struct {
	Entity string  `json:"entity"`
	Score  float64 `json:"score"`
	// Facts is how many facts link both entities.
	Facts int `json:"facts"`
}
