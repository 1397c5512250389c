package postgres

import (
	"encoding/json"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/holomem/holomem"
	"github.com/holomem/holomem/internal/store/sqlstore"
	"github.com/holomem/holomem/internal/testkit/pgtest"
)

// TestQueryPlans loads 100k facts, 100k edges and 10k entities with
// set-based INSERT ... SELECT generate_series (seconds, not minutes),
// runs ANALYZE, and fails when EXPLAIN (FORMAT JSON) of a hot query shows
// a sequential scan of facts, edges or the entity tables: at this size
// such a plan makes every recall O(n). docs/design.md §8 tells why: the
// reference implementation lost its indexes to plan flips twice.
func TestQueryPlans(t *testing.T) {
	if testing.Short() {
		t.Skip("loads 100k facts; skipped with -short")
	}
	ctx := t.Context()
	s, err := Open(ctx, pgtest.Addr(t))
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	const n = 100_000
	load := []string{
		fmt.Sprintf(`INSERT INTO facts (namespace, content, content_hash, category, trust, created_at, updated_at, hrr, external_key, model_id, embedding)
		SELECT CASE WHEN g %% 10 = 0 THEN 'other' ELSE 'default' END, 'fact number ' || g, g, 'general', 0.5, g, g,
			'\x01'::bytea, 'k' || g,
			CASE WHEN g %% 2 = 0 THEN 'm' END, CASE WHEN g %% 2 = 0 THEN '\x00000000'::bytea END
		FROM generate_series(1, %d) g`, n),
		`INSERT INTO fact_search (id, namespace, live, fts)
		SELECT id, namespace, true, array_to_tsvector(ARRAY['fact', 'number', 'w' || (id % 5000)]) FROM facts`,
		fmt.Sprintf(`INSERT INTO edges (src, dst, kind, weight, origin, created_at)
		SELECT g, g %% %d + 1, 'similar_to', 1, 'hnsw', g FROM generate_series(1, %d) g`, n, n),
		`INSERT INTO entities (namespace, name, key) SELECT 'default', 'E' || g, 'e' || g FROM generate_series(1, 10000) g`,
		`INSERT INTO entity_aliases (entity_id, namespace, alias, alias_key) SELECT g, 'default', 'A' || g, 'a' || g FROM generate_series(1, 10000) g`,
		fmt.Sprintf(`INSERT INTO fact_entities (fact_id, entity_id) SELECT g, g %% 10000 + 1 FROM generate_series(1, %d) g`, n),
		`ANALYZE`,
	}
	// One connection for the load: foreign key triggers are skipped
	// (session_replication_role, when the test role may set it), the data
	// is consistent by construction.
	conn, err := s.pool.Acquire(ctx)
	if err != nil {
		t.Fatal(err)
	}
	_, _ = conn.Exec(ctx, "SET session_replication_role = replica")
	for _, q := range load {
		start := time.Now()
		if _, err := conn.Exec(ctx, q); err != nil {
			t.Fatalf("%s: %v", q, err)
		}
		t.Logf("%.1fs: %.60s", time.Since(start).Seconds(), strings.Join(strings.Fields(q), " "))
	}
	_, _ = conn.Exec(ctx, "RESET session_replication_role")
	conn.Release()
	edgeCond, ea := sqlstore.EdgeWhere(holomem.EdgeFilter{FactID: 4242, Kinds: []holomem.EdgeKind{holomem.EdgeSimilar}})
	page := dialect.FactsQuery(holomem.FactFilter{Namespace: ptr("default"), AfterID: 50_000, WithoutEmbeddingFor: ptr("m"), Limit: 256})
	// Recall reads its candidates by id: 40-75 of them per query.
	var ids []int64
	for i := range 60 {
		ids = append(ids, int64(7+i*1601))
	}
	byIDs := dialect.FactsQuery(holomem.FactFilter{IDs: ids, WithEmbedding: true, WithHRR: true})
	tests := []struct {
		name string
		q    string
		args []any
	}{
		{"SearchText", ftsSearch, []any{tsquery(queryTerms("w123 number"), "&"), "default", 10}},
		{"SearchTextRelaxed", ftsSearch, []any{tsquery(queryTerms("w123 w77"), "|"), "default", 10}},
		{"FactByID", "SELECT " + factColumns(false, false) + " FROM facts f WHERE f.id = $1", []any{4242}},
		{"FactsByIDs", byIDs.Page, byIDs.PageArgs},
		{"FactByHash", sqlstore.QFactByHash, []any{"default", 4242}},
		{"FactByKey", sqlstore.QFactByKey, []any{"default", "k4242"}},
		{"EdgesOfFact", "SELECT e.src FROM edges e WHERE " + strings.Join(edgeCond, " AND "), ea},
		{"FactsWithoutVectors", page.Page, page.PageArgs},
		{"LookupEntity", qLookupEntity, []any{"default", "e77", "default", "e77"}},
		{"ResolveEntityAlias", qResolveEntity, []any{"default", "a77", "default", "a77"}},
		{"FactsOfEntity", qFactsOfEntity, []any{77}},
		{"EntitiesOfFacts", dialect.QEntitiesOfFacts(), []any{[]int64{7, 70, 700}}},
		// What a bulk import asks while it links entities.
		{"ResolveEntities", qResolveEntities, []any{[]string{"default", "default", "other"}, []string{"e77", "a78", "e79"}}},
		{"TermFacts", qTermFacts, []any{"default", tsquery(queryTerms("w123"), "|"), 4242}},
		{"EntityNamesOfFact", qEntityNamesOfFact, []any{4242}},
		// What every one-shot recall and hook reads for BM25, and what a
		// recall that found nothing reads for its "found elsewhere" hint.
		{"LiveFacts", qLiveFacts, []any{"default"}},
		{"AllFacts", qAllFacts, nil},
		{"Namespaces", qNamespaces, nil},
		{"DocFreq", "SELECT count(*) FROM fact_search WHERE fts @@ $1::tsquery", []any{tsquery(queryTerms("w123"), "|")}},
		{"DocFreqCapped", "SELECT count(*) FROM (SELECT 1 FROM fact_search WHERE fts @@ $1::tsquery AND namespace = $2 AND live LIMIT $3) s",
			[]any{tsquery(queryTerms("w123"), "|"), "default", 1000}},
	}
	for _, tt := range tests {
		var raw string
		if err := s.pool.QueryRow(ctx, "EXPLAIN (FORMAT JSON) "+sqlstore.Rebind(tt.q), tt.args...).Scan(&raw); err != nil {
			t.Fatalf("%s: %v", tt.name, err)
		}
		var plans []struct{ Plan planNode }
		if err := json.Unmarshal([]byte(raw), &plans); err != nil || len(plans) != 1 {
			t.Fatalf("%s: plan %s: %v", tt.name, raw, err)
		}
		var scans []string
		plans[0].Plan.walk(func(p *planNode) {
			if p.NodeType == "Seq Scan" {
				switch p.Relation {
				case "facts", "fact_search", "edges", "entities", "entity_aliases", "fact_entities":
					scans = append(scans, p.Relation)
				}
			}
		})
		if len(scans) > 0 {
			t.Errorf("%s scans %v sequentially at %d facts:\n%s", tt.name, scans, n, raw)
		}
		t.Logf("%s: %s", tt.name, plans[0].Plan.summary())
	}
}

type planNode struct {
	NodeType string     `json:"Node Type"`
	Relation string     `json:"Relation Name"`
	Index    string     `json:"Index Name"`
	Plans    []planNode `json:"Plans"`
}

func (p *planNode) walk(fn func(*planNode)) {
	fn(p)
	for i := range p.Plans {
		p.Plans[i].walk(fn)
	}
}

func (p *planNode) summary() string {
	var parts []string
	p.walk(func(n *planNode) {
		s := n.NodeType
		if n.Relation != "" {
			s += " on " + n.Relation
		}
		if n.Index != "" {
			s += " using " + n.Index
		}
		parts = append(parts, s)
	})
	return strings.Join(parts, " > ")
}

func ptr[T any](v T) *T { return &v }
