package holomem

import "time"

// IndexMode is how a namespace's semantic searches run.
type IndexMode string

// Index modes (package index implements them).
const (
	// IndexExact scans every vector: the namespace is small, or has no built graph.
	IndexExact IndexMode = "exact"
	// IndexHNSW walks the HNSW graph and scans the vectors written since its build exactly.
	IndexHNSW IndexMode = "hnsw"
	// IndexFallback scans every vector because the graph failed a check
	// (corrupt on load, or the recall canary tripped).
	IndexFallback IndexMode = "fallback"
)

// IndexStatus describes one namespace's vector index.
type IndexStatus struct {
	Namespace string `json:"namespace"`
	Model     string `json:"model"`
	// Vectors is the number of vectors in memory.
	Vectors int `json:"vectors"`
	// Int8 is true when exact scans pre-select with int8 rows.
	Int8 bool `json:"int8"`
	// Nodes and Edges describe the in-memory HNSW graph (0 without one).
	Nodes int `json:"nodes"`
	Edges int `json:"edges"`
	// Delta is the number of vectors not in the graph, scanned exactly.
	Delta int `json:"delta"`
	// Unpersisted counts graph edits (incremental inserts, deletes, an
	// in-memory rebuild) not yet persisted.
	Unpersisted int `json:"unpersisted"`
	// Mode is how searches run.
	Mode IndexMode `json:"mode"`
	// Recall is the last canary's recall@10 and CanaryAt its time; Recall
	// is -1 when no canary ran.
	Recall   float64   `json:"recall"`
	CanaryAt time.Time `json:"canary_at,omitzero"`
	// Notes say what doctor should tell the user.
	Notes []string `json:"notes,omitempty"`
}

// Status is what a memory runs with right now, for a namespace: the recall
// channels that are live, the embedding model, the weights after
// redistribution, the vector index (mode and last canary) and the store's
// counts. Transports show it as it is; none of them probes with a recall.
type Status struct {
	Namespace string `json:"namespace"`
	// Model is the embedding model's id; "" when semantic search is off.
	Model string `json:"model,omitempty"`
	// Channels are the recall channels a query runs (ppr only when asked).
	Channels []Channel `json:"channels"`
	// Weights are the channel weights after redistribution.
	Weights Weights `json:"weights"`
	// Notes name degraded modes and how to fix them.
	Notes []string `json:"notes,omitempty"`
	// Index is the vector index of the namespace; nil without a model or
	// before the namespace has vectors.
	Index *IndexStatus `json:"index,omitempty"`
	Stats *Stats       `json:"stats"`
}
