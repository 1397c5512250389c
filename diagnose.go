package holomem

import (
	"fmt"
	"time"
)

// Doctor's thresholds: [Memory.Diagnose] judges with them, and the CLI
// only prints what it found.
const (
	// DiagnoseWindow is how far back Diagnose looks at the prompt hook's runs.
	DiagnoseWindow = 24 * time.Hour
	// HookLateShare is the share of the hook's runs in DiagnoseWindow that
	// may miss their deadline before Diagnose warns (one in ten).
	HookLateShare = 0.1
	// DiagnoseCanarySample is the sample of the recall canary Diagnose runs
	// on every namespace searched through HNSW.
	DiagnoseCanarySample = 100
	// EdgeRecentWindow and EdgePreviousWindow are edge liveness's windows:
	// a kind and origin that made edges in the previous window and none in
	// the recent one has stalled ([EdgeActivity.Judge]).
	EdgeRecentWindow   = 7 * 24 * time.Hour
	EdgePreviousWindow = 30 * 24 * time.Hour
)

// Judge sets Stalled and Comments from the counts: a kind and origin that
// made edges in the 30 days before the last 7 and none since has stalled
// (an importer or a pattern stopped working, docs/design.md §6: edge liveness).
// Stores call it when they compute [Stats.EdgeActivity].
func (a *EdgeActivity) Judge() {
	a.Stalled = a.Last7d == 0 && a.Prev30d > 0
	a.Comments = ""
	if a.Stalled {
		a.Comments = fmt.Sprintf("no %s edges from %q in the last 7 days (there were %d in the 30 days before): check the importer or the pattern that makes them", a.Kind, a.Origin, a.Prev30d)
	}
}

// Finding is one problem Diagnose found, said so a person can act on it.
type Finding struct {
	// Check names what was checked: vectors, hrr, edge_liveness, anchors,
	// vector_index or hook.
	Check     string `json:"check"`
	Namespace string `json:"namespace,omitempty"`
	Message   string `json:"message"`
}

// StaleAnchor is an anchored fact whose file changed or vanished.
type StaleAnchor struct {
	ID     int64  `json:"id"`
	Path   string `json:"path"`
	Reason string `json:"reason"`
}

// Diagnosis is what [Memory.Diagnose] found: the figures doctor shows and
// the findings it warns about; no findings means all is well.
type Diagnosis struct {
	Stats    *Stats    `json:"stats"`
	Channels []Channel `json:"channels"`
	// Model is the embedding model's id; "" without one.
	Model string `json:"model,omitempty"`
	// WithoutVectors counts facts without a vector of Model (all of them without a model).
	WithoutVectors int           `json:"facts_without_vectors"`
	Stale          []StaleAnchor `json:"stale_anchors,omitempty"`
	// UncheckedAnchors counts anchored facts that could not be checked.
	UncheckedAnchors int `json:"unchecked_anchors,omitempty"`
	// Index is the vector index per namespace, after the canary ran.
	Index []IndexStatus `json:"vector_index,omitempty"`
	// Hooks summarises the prompt hook's runs in DiagnoseWindow (nil if none).
	Hooks    *InjectionStats `json:"hook_24h,omitempty"`
	Findings []Finding       `json:"findings,omitempty"`
}
