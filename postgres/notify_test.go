package postgres_test

import (
	"testing"
	"time"

	"github.com/holomem/holomem"
	"github.com/holomem/holomem/internal/testkit/pgtest"
)

// TestSubscribe: a Store LISTENing hears the namespaces another Store
// writes on the same schema, and nothing from a store in another schema.
func TestSubscribe(t *testing.T) {
	ctx := t.Context()
	addr := pgtest.Addr(t)
	a, b := mustOpen(t, addr), mustOpen(t, addr)
	other := mustOpen(t, pgtest.Addr(t))
	got := make(chan string, 16)
	cancel := b.Subscribe(func(ns string) { got <- ns })
	defer cancel()
	wait := func(want string) {
		t.Helper()
		for {
			select {
			case ns := <-got:
				if ns == want {
					return
				}
				if ns != "" {
					t.Fatalf("change of %q, want %q", ns, want)
				}
			case <-time.After(30 * time.Second):
				t.Fatalf("no change of %q reported", want)
			}
		}
	}
	wait("") // the listener started: everything may have changed
	if _, err := other.CreateFact(ctx, &holomem.Fact{Content: "elsewhere", Namespace: "x"}); err != nil {
		t.Fatal(err)
	}
	if _, err := a.CreateFact(ctx, &holomem.Fact{Content: "Kafka moved", Namespace: "team"}); err != nil {
		t.Fatal(err)
	}
	wait("team")
	f := &holomem.Fact{Content: "second"}
	if _, err := a.CreateFact(ctx, f); err != nil {
		t.Fatal(err)
	}
	wait(holomem.DefaultNamespace)
	// A rolled-back write (invalid edge) sends nothing; the next commit does.
	if _, err := a.CreateEdge(ctx, &holomem.Edge{From: f.ID, To: 999999, Kind: holomem.EdgeCausal}); err == nil {
		t.Fatal("edge to a missing fact was accepted")
	}
	if err := a.DeleteFact(ctx, f.ID); err != nil {
		t.Fatal(err)
	}
	wait(holomem.DefaultNamespace)
}
