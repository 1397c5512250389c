package retrieve_test

import (
	"fmt"
	"path/filepath"
	"slices"
	"testing"

	"github.com/holomem/holomem"
	"github.com/holomem/holomem/internal/testkit/testutil"
	"github.com/holomem/holomem/retrieve"
	"github.com/holomem/holomem/sqlite"
)

// openSQLite opens the SQLite file at path as its own store (another
// process's handle when path is already open).
func openSQLite(t *testing.T, path string) *sqlite.Store {
	t.Helper()
	s, err := sqlite.Open(t.Context(), path)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { s.Close() })
	return s
}

func recallIDs(t *testing.T, m *retrieve.Memory, q string) []int64 {
	t.Helper()
	res, err := m.Recall(t.Context(), holomem.Query{Text: q, NoTouch: true})
	if err != nil {
		t.Fatalf("recall %q: %v", q, err)
	}
	return ids(res.Hits)
}

// A long-running process's text index follows writes made by another
// process on the same file at once: adds, content changes, supersession,
// deletion and entity links.
func TestLive_followsOtherProcess(t *testing.T) {
	path := filepath.Join(t.TempDir(), "holomem.db")
	server := testutil.MustNewMemory(t, openSQLite(t, path), retrieve.Options{LiveIndex: true})
	if !server.LiveText() {
		t.Fatal("LiveText() = false after WarmText on an SQLite store")
	}
	cli := testutil.MustNewMemory(t, openSQLite(t, path), retrieve.Options{})

	a := remember(t, cli, "The billing service runs on Kubernetes in Frankfurt")
	b := remember(t, cli, "Payroll exports go to the finance bucket every Friday")
	if got := recallIDs(t, server, "billing kubernetes"); len(got) == 0 || got[0] != a.ID {
		t.Fatalf("server recall after another process's add = %v, want #%d first", got, a.ID)
	}

	newText := "The invoicing service runs on Nomad in Amsterdam"
	if _, err := cli.Update(t.Context(), a.ID, holomem.FactUpdate{Content: &newText}); err != nil {
		t.Fatal(err)
	}
	if got := recallIDs(t, server, "billing kubernetes frankfurt"); slices.Contains(got, a.ID) {
		t.Errorf("recall by the old words still finds #%d: %v", a.ID, got)
	}
	if got := recallIDs(t, server, "invoicing nomad"); len(got) == 0 || got[0] != a.ID {
		t.Errorf("recall by the new words = %v, want #%d first", got, a.ID)
	}
	res, err := server.Recall(t.Context(), holomem.Query{Text: "invoicing nomad", NoTouch: true})
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Hits) == 0 || !hasEntity(res.Hits[0].Fact, "Nomad") {
		t.Errorf("hit entities after the update = %+v, want Nomad (cached entities must follow the change)", res.Hits)
	}

	c := remember(t, cli, "Payroll exports go to the finance bucket every Monday")
	if err := cli.Supersede(t.Context(), b.ID, c.ID); err != nil {
		t.Fatal(err)
	}
	got := recallIDs(t, server, "payroll exports finance bucket")
	if slices.Contains(got, b.ID) || !slices.Contains(got, c.ID) {
		t.Errorf("after supersede: %v, want #%d and not #%d", got, c.ID, b.ID)
	}

	if err := cli.Forget(t.Context(), c.ID); err != nil {
		t.Fatal(err)
	}
	if got := recallIDs(t, server, "payroll exports finance bucket"); slices.Contains(got, c.ID) {
		t.Errorf("deleted #%d still recalled: %v", c.ID, got)
	}
}

func hasEntity(f *holomem.Fact, name string) bool {
	return slices.Contains(f.Entities, name)
}

// The live index and the store's search give the same ranking when every
// match fits in the candidate pool (small stores), and recall from the
// index is deterministic.
func TestLive_sameRankingAsStoreSearch(t *testing.T) {
	path := filepath.Join(t.TempDir(), "holomem.db")
	plain := testutil.MustNewMemory(t, openSQLite(t, path), retrieve.Options{})
	words := []string{"deploy", "nginx", "postgres", "backup", "alice", "bob", "cache", "redis", "invoice", "report",
		"kubernetes", "staging", "prod", "release", "token", "rotate", "weekly", "monday", "dashboard", "alert"}
	var facts []*holomem.Fact
	for i := range 40 {
		content := fmt.Sprintf("Note %d: %s %s and %s for the %s team", i,
			words[i%len(words)], words[(i*7+3)%len(words)], words[(i*11+5)%len(words)], words[(i*13+1)%len(words)])
		facts = append(facts, &holomem.Fact{Content: content})
	}
	if _, err := plain.Import(t.Context(), facts); err != nil {
		t.Fatal(err)
	}
	live := testutil.MustNewMemory(t, openSQLite(t, path), retrieve.Options{LiveIndex: true})
	for _, q := range []string{"deploy nginx", "postgres backup", "alice redis cache", "rotate token weekly",
		"staging release alert", "monday dashboard", "bob", "invoice report prod"} {
		want := recallIDs(t, plain, q)
		got := recallIDs(t, live, q)
		if !slices.Equal(got, want) {
			t.Errorf("%q: live index %v, store search %v", q, got, want)
		}
		if again := recallIDs(t, live, q); !slices.Equal(again, got) {
			t.Errorf("%q: live index not deterministic: %v then %v", q, got, again)
		}
	}
}

// A warm process takes its own adds from memory, but a change another
// process makes to such a fact before the warm one syncs wins, as do the
// other process's adds, supersessions and deletes around its own writes.
func TestLive_ownWritesAndOtherProcess(t *testing.T) {
	path := filepath.Join(t.TempDir(), "holomem.db")
	server := testutil.MustNewMemory(t, openSQLite(t, path), retrieve.Options{LiveIndex: true})
	cli := testutil.MustNewMemory(t, openSQLite(t, path), retrieve.Options{})

	a := remember(t, server, "The billing service runs on Kubernetes in Frankfurt")
	newText := "The invoicing service runs on Nomad in Amsterdam"
	if _, err := cli.Update(t.Context(), a.ID, holomem.FactUpdate{Content: &newText}); err != nil {
		t.Fatal(err)
	}
	if got := recallIDs(t, server, "billing kubernetes frankfurt"); slices.Contains(got, a.ID) {
		t.Errorf("own add changed by another process: the old words still find #%d: %v", a.ID, got)
	}
	if got := recallIDs(t, server, "invoicing nomad"); len(got) == 0 || got[0] != a.ID {
		t.Errorf("own add changed by another process: new words = %v, want #%d first", got, a.ID)
	}

	x := remember(t, cli, "Payroll exports go to the finance bucket every Friday")
	b := remember(t, server, "Grace rotates the payroll tokens every quarter")
	c := remember(t, server, "Payroll exports go to the finance bucket every Monday")
	if err := cli.Supersede(t.Context(), c.ID, x.ID); err != nil {
		t.Fatal(err)
	}
	got := recallIDs(t, server, "payroll exports finance bucket")
	if !slices.Contains(got, x.ID) || slices.Contains(got, c.ID) {
		t.Errorf("after another process's add and its supersession of an own add: %v, want #%d and not #%d", got, x.ID, c.ID)
	}
	if got := recallIDs(t, server, "grace payroll tokens quarter"); len(got) == 0 || got[0] != b.ID {
		t.Errorf("own add next to another process's writes = %v, want #%d first", got, b.ID)
	}

	d := remember(t, server, "The on-call rota lives in the ops wiki")
	if err := cli.Forget(t.Context(), d.ID); err != nil {
		t.Fatal(err)
	}
	if got := recallIDs(t, server, "on-call rota ops wiki"); slices.Contains(got, d.ID) {
		t.Errorf("own add deleted by another process is still recalled: %v", got)
	}
}
