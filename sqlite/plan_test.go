package sqlite

import (
	"context"
	"path/filepath"
	"strings"
	"testing"

	"github.com/holomem/holomem"
	"github.com/holomem/holomem/internal/store/sqlstore"
)

// TestQueryPlans checks that the hot queries use an index: a plan that
// scans facts, edges or the link tables makes them O(n) per call.
func TestQueryPlans(t *testing.T) {
	ctx := context.Background()
	s, err := Open(ctx, filepath.Join(t.TempDir(), "plan.db"))
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	// Some rows and fresh statistics, so the planner sees a real table.
	for i := range 50 {
		if _, err := s.CreateFact(ctx, &holomem.Fact{Content: "Fact number " + strings.Repeat("x", i)}); err != nil {
			t.Fatal(err)
		}
	}
	if _, err := s.wdb.Exec("ANALYZE"); err != nil {
		t.Fatal(err)
	}
	edgeCond, edgeArgs := sqlstore.EdgeWhere(holomem.EdgeFilter{FactID: 1})
	tests := []struct {
		name string
		q    string
		args []any
	}{
		{"FactByHash", qFactByHash, []any{"default", 1}},
		{"OtherFactByHash", qOtherFactByHash, []any{"default", 1, 2, true}},
		{"FactByKey", qFactByKey, []any{"default", "k"}},
		{"FactsByKeys", qFactsByKeys, []any{"default", `["k","j"]`}},
		{"FactsByHashes", qFactsByHashes, []any{"default", `[1,2]`}},
		{"ResolveEntity", qResolveEntity, []any{"default", "k", "default", "k"}},
		{"ResolveEntities", qResolveEntities, []any{"default", `["k","j"]`, "default", `["k","j"]`}},
		{"TermFacts", termMatchSQL(2), []any{`{content tags} : "fact"`, "default", `{content tags} : "number"`, "default"}},
		{"LookupEntity", qLookupEntity, []any{"default", "k", "default", "k"}},
		{"FactsOfEntity", qFactsOfEntity, []any{1}},
		{"EdgesOfFact", "SELECT e.src FROM edges e WHERE " + strings.Join(edgeCond, " AND "), edgeArgs},
		{"SearchText", ftsSearch, []any{scopedMatch(`"fact"`, "default", false), 10}},
		{"SimilarTermIDs", qTermIDs, []any{"default", `{content tags} : ("fact")`, 201}},
		{"SimilarAllIDs", qAllIDs, []any{`{content tags} : ("fact" AND "number")`, 80, "default"}},
	}
	for _, tt := range tests {
		rows, err := s.rdb.Query("EXPLAIN QUERY PLAN "+tt.q, tt.args...)
		if err != nil {
			t.Fatalf("%s: %v", tt.name, err)
		}
		var plan []string
		for rows.Next() {
			var id, parent, unused int
			var detail string
			if err := rows.Scan(&id, &parent, &unused, &detail); err != nil {
				t.Fatal(err)
			}
			plan = append(plan, detail)
		}
		rows.Close()
		for _, line := range plan {
			// Hygiene's candidate reads must go from the full-text match
			// to the facts rows by id, never the other way round.
			if (strings.HasPrefix(tt.name, "Similar") || tt.name == "TermFacts") && strings.Contains(line, " f ") && !strings.Contains(line, "INTEGER PRIMARY KEY") {
				t.Errorf("%s reads facts other than by id: %q", tt.name, plan)
			}
			for _, table := range []string{"facts", "edges", "entities", "entity_aliases", "fact_entities"} {
				if strings.HasPrefix(line, "SCAN "+table+" ") || line == "SCAN "+table || strings.HasPrefix(line, "SCAN e ") || strings.HasPrefix(line, "SCAN a ") {
					t.Errorf("%s scans a table: %q", tt.name, plan)
				}
			}
		}
		t.Logf("%s: %q", tt.name, plan)
	}
}
