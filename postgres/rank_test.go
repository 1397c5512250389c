package postgres_test

import (
	"path/filepath"
	"slices"
	"testing"

	"github.com/holomem/holomem"
	"github.com/holomem/holomem/internal/testkit/pgtest"
	"github.com/holomem/holomem/retrieve"
	"github.com/holomem/holomem/sqlite"
)

// rankFacts are notes, chat turns and history an agent keeps, in English
// and Russian, with words shared in different proportions.
var rankFacts = []string{
	"We deploy nginx to the staging servers with Ansible every Friday",
	"The staging database is Postgres 16 on a dedicated host",
	"nginx returns 502 when the upstream pool is exhausted",
	"Deploys to production need a green CI run and a second reviewer",
	"Alice owns the Ansible playbooks for the edge proxies",
	"The staging servers were moved to the Frankfurt region in March",
	"Rollbacks use the previous nginx image tag from the registry",
	"Bob prefers blue-green deploys over rolling restarts",
	"nginx config reload drops websocket connections",
	"Postgres backups run nightly and are kept for 30 days",
	"Caching headers for static assets are set in the nginx site config",
	"The Ansible inventory lists every staging and production host",
	"Alice prefers dark mode in every editor",
	"Caroline went to the LGBTQ support group on Tuesday",
	"Melanie painted a sunrise over the lake last summer",
	"Caroline is researching adoption agencies",
	"Мы развернули nginx на всех серверах",
	"У Алексея есть пароль от стенда",
	"Бэкапы Postgres снимаются каждую ночь",
	"Развертывание на прод только после ревью",
	"fix(recall): BM25 over stems for the fts channel",
	"feat(web): search page shows the channel scores",
	"The hook injects at most five facts within two seconds",
	"Decay is a bounded recency prior with a floor of 0.5",
}

var rankQueries = []string{
	"how do we deploy nginx to staging",
	"what does Alice prefer",
	"postgres backups",
	"when did Caroline go to the support group",
	"развертывание nginx",
	"пароль Алексея",
	"how are recall scores computed",
	"websocket connections",
	"who owns the ansible playbooks",
}

// TestRecall_sameRankingAsSQLite: recall over PostgreSQL ranks the same
// facts in the same order as over SQLite (both re-score candidates with
// BM25 from the store's term statistics).
func TestRecall_sameRankingAsSQLite(t *testing.T) {
	ctx := t.Context()
	pg := mustOpen(t, pgtest.Addr(t))
	lite, err := sqlite.Open(ctx, filepath.Join(t.TempDir(), "rank.db"))
	if err != nil {
		t.Fatal(err)
	}
	defer lite.Close()
	ranks := func(st holomem.Store) [][]int64 {
		m, err := retrieve.New(st, retrieve.Options{})
		if err != nil {
			t.Fatal(err)
		}
		for _, c := range rankFacts {
			if _, err := m.Remember(ctx, &holomem.Fact{Content: c}); err != nil {
				t.Fatal(err)
			}
		}
		var out [][]int64
		for _, q := range rankQueries {
			res, err := m.Recall(ctx, holomem.Query{Text: q, Limit: 10})
			if err != nil {
				t.Fatal(err)
			}
			var ids []int64
			for _, h := range res.Hits {
				ids = append(ids, h.Fact.ID)
			}
			out = append(out, ids)
		}
		return out
	}
	want, got := ranks(lite), ranks(pg)
	for i, q := range rankQueries {
		if len(want[i]) == 0 {
			t.Errorf("%q: SQLite found nothing; the test needs a ranking", q)
		}
		if !slices.Equal(got[i], want[i]) {
			t.Errorf("%q: PostgreSQL ranks %v, SQLite %v", q, got[i], want[i])
		}
	}
	if _, ok := any(pg).(holomem.TermStatser); !ok {
		t.Errorf("%T has no TermStats", pg)
	}
}
