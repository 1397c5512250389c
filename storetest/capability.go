package storetest

import (
	"context"
	"errors"
	"slices"
	"testing"
	"time"

	"github.com/holomem/holomem"
	"github.com/holomem/holomem/text"
)

// capabilityTest is one conformance test of an optional capability.
type capabilityTest struct {
	name string
	fn   func(t *testing.T, s holomem.Store)
}

// capabilityTests are the tests of each entry of holomem.Capabilities, by
// its name. Run fails a capability listed there without tests here.
var capabilityTests = map[string][]capabilityTest{
	"EntityRelinker":      {{"RelinkIdempotent", testEntitiesRelink}},
	"ChangeFeeder":        {{"Writes", testFeedWrites}, {"Cursor", testFeedCursor}, {"TooMany", testFeedTooMany}},
	"OwnChangeFeeder":     {{"OwnChange", testFeedOwnChange}},
	"HealthChecker":       {{"Healthy", testHealth}},
	"TermStatser":         {{"Counts", testTermStats}},
	"WordFinder":          {{"Words", testFactIDsWithWords}},
	"ChangeNotifier":      {{"SubscribeCancel", testSubscribe}},
	"FileChecker":         {{"InPlace", testCheckFile}},
	"WALNoticer":          {{"NoneWhenClean", testWALNotice}},
	"NamespaceLister":     {{"Sorted", testNamespaces}},
	"SimilarFactFinder":   {{"Bounded", testSimilarFacts}},
	"RecentEntityFacts":   {{"Newest", testRecentFactIDsByEntity}},
	"RecentEntitiesFacts": {{"Newest", testRecentFactIDsByEntities}},
	"FactBrowser":         {{"Keyset", testBrowseKeyset}, {"Filters", testBrowseFilters}},
	"FactPreparer":        {{"PrepareThenWrite", testPrepareFacts}, {"Invalid", testPrepareFactsInvalid}},
}

// runCapabilities runs one subtest per entry of holomem.Capabilities,
// named after it, each of its tests skipped with a message on a store
// that lacks it.
func runCapabilities(t *testing.T, open func(t *testing.T) holomem.Store) {
	for _, c := range holomem.Capabilities {
		t.Run("Capability/"+c.Name, func(t *testing.T) {
			tests := capabilityTests[c.Name]
			if len(tests) == 0 {
				t.Fatalf("no conformance test for capability %s: add one to storetest's capabilityTests", c.Name)
			}
			for _, tt := range tests {
				t.Run(tt.name, func(t *testing.T) {
					s := open(t)
					t.Cleanup(func() { s.Close() })
					if !c.Has(s) {
						t.Skipf("%T lacks optional capability holomem.%s (store.go says which stores have it and why)", s, c.Name)
					}
					tt.fn(t, s)
				})
			}
		})
	}
}

// capability returns s as T or fails t (runCapabilities runs a test only
// on a store with its capability).
func capability[T any](t *testing.T, s holomem.Store) T {
	t.Helper()
	c, ok := holomem.As[T](s)
	if !ok {
		var zero T
		t.Fatalf("%T is not a %T", s, &zero)
	}
	return c
}

// testHealth: an open store is healthy, and says so quickly.
func testHealth(t *testing.T, s holomem.Store) {
	hc := capability[holomem.HealthChecker](t, s)
	ctx, cancel := context.WithTimeout(t.Context(), 10*time.Second)
	defer cancel()
	if err := hc.Health(ctx); err != nil {
		t.Fatalf("Health() = %v on an open store", err)
	}
}

// testSubscribe: subscribing and cancelling works, and the store's own
// writes are not reported (notifications are of other processes' writes;
// the backend's own tests write from a second store).
func testSubscribe(t *testing.T, s holomem.Store) {
	n := capability[holomem.ChangeNotifier](t, s)
	got := make(chan string, 16)
	cancel := n.Subscribe(func(ns string) {
		if ns != "" { // "" is sent when listening starts
			select {
			case got <- ns:
			default:
			}
		}
	})
	create(t, s, &holomem.Fact{Content: "we deploy on Fridays", Namespace: "own"})
	select {
	case ns := <-got:
		t.Errorf("notified of the store's own write (namespace %q)", ns)
	case <-time.After(300 * time.Millisecond):
	}
	cancel()
	cancel() // twice is harmless
}

// testCheckFile: a store whose file is where it was opened passes.
func testCheckFile(t *testing.T, s holomem.Store) {
	if err := capability[holomem.FileChecker](t, s).CheckFile(); err != nil {
		t.Fatalf("CheckFile() = %v on a store in place", err)
	}
}

// testWALNotice: a store opened cleanly has no notice.
func testWALNotice(t *testing.T, s holomem.Store) {
	n, err := capability[holomem.WALNoticer](t, s).WALNotice(t.Context())
	if err != nil || n != "" {
		t.Fatalf("WALNotice() = %q, %v on a clean store; want none", n, err)
	}
}

// testNamespaces: the namespaces holding facts, sorted; one whose facts
// are all deleted is gone.
func testNamespaces(t *testing.T, s holomem.Store) {
	nl := capability[holomem.NamespaceLister](t, s)
	ctx := t.Context()
	if got, err := nl.Namespaces(ctx); err != nil || len(got) != 0 {
		t.Fatalf("Namespaces() on an empty store = %v, %v", got, err)
	}
	create(t, s, &holomem.Fact{Content: "zeta deploys", Namespace: "zeta"})
	create(t, s, &holomem.Fact{Content: "alpha deploys", Namespace: "alpha"})
	create(t, s, &holomem.Fact{Content: "alpha again", Namespace: "alpha"})
	gone := create(t, s, &holomem.Fact{Content: "mid deploys", Namespace: "mid"})
	if err := s.DeleteFact(ctx, gone.ID); err != nil {
		t.Fatal(err)
	}
	got, err := nl.Namespaces(ctx)
	if want := []string{"alpha", "zeta"}; err != nil || !slices.Equal(got, want) {
		t.Errorf("Namespaces() = %v, %v; want %v", got, err, want)
	}
}

// testSimilarFacts: hygiene's candidates are the namespace's live facts
// sharing the most of the terms, best first, scored in 0..1, at most limit.
func testSimilarFacts(t *testing.T, s holomem.Store) {
	sf := capability[holomem.SimilarFactFinder](t, s)
	ctx := t.Context()
	both := create(t, s, fact("the zanzibar gateway runs kestrel daemons"))
	one := create(t, s, fact("the zanzibar office opens at nine"))
	create(t, s, fact("nothing in common here at all"))
	create(t, s, &holomem.Fact{Content: "zanzibar kestrel elsewhere", Namespace: "other"})
	old := create(t, s, fact("zanzibar kestrel retired note"))
	if err := s.Supersede(ctx, old.ID, both.ID); err != nil {
		t.Fatal(err)
	}
	got, err := sf.SimilarFacts(ctx, "", []string{"zanzibar", "kestrel"}, 10, 200)
	if err != nil {
		t.Fatal(err)
	}
	if ids := matchIDs(got); !slices.Equal(ids, []int64{both.ID, one.ID}) {
		t.Fatalf("SimilarFacts = %v, want [%d %d] (both terms first; no other namespace, nothing superseded)", ids, both.ID, one.ID)
	}
	if got[0].Score <= got[1].Score || got[0].Score > 1 || got[1].Score <= 0 {
		t.Errorf("scores %v: want 1 >= first > second > 0", got)
	}
	if got, err := sf.SimilarFacts(ctx, "", []string{"zanzibar", "kestrel"}, 1, 200); err != nil || len(got) != 1 || got[0].ID != both.ID {
		t.Errorf("SimilarFacts(limit 1) = %v, %v; want [%d]", got, err, both.ID)
	}
	if got, err := sf.SimilarFacts(ctx, "", []string{"absentword"}, 10, 200); err != nil || len(got) != 0 {
		t.Errorf("SimilarFacts(absent) = %v, %v; want none", got, err)
	}
}

// testRecentFactIDsByEntity: an entity's newest facts, in id order, with
// aliases resolved; nothing for an unknown entity or a zero limit.
func testRecentFactIDsByEntity(t *testing.T, s holomem.Store) {
	rf := capability[holomem.RecentEntityFacts](t, s)
	ctx := t.Context()
	var ids []int64
	for _, c := range []string{"Grace Hopper wrote COBOL", "Grace Hopper found a moth", "Grace Hopper taught", "Grace Hopper retired"} {
		ids = append(ids, create(t, s, fact(c)).ID)
	}
	create(t, s, &holomem.Fact{Content: "Grace Hopper elsewhere", Namespace: "other"})
	for _, tc := range []struct {
		name  string
		limit int
		want  []int64
	}{
		{"Grace Hopper", 2, ids[2:]},
		{"grace hopper", 10, ids},
		{"Nobody Known", 5, nil},
		{"Grace Hopper", 0, nil},
	} {
		got, err := rf.RecentFactIDsByEntity(ctx, "", tc.name, tc.limit)
		if err != nil || !slices.Equal(got, tc.want) {
			t.Errorf("RecentFactIDsByEntity(%q, %d) = %v, %v; want %v", tc.name, tc.limit, got, err, tc.want)
		}
	}
}

// testRecentFactIDsByEntities: the same for several names at once,
// ids[i] for names[i].
func testRecentFactIDsByEntities(t *testing.T, s holomem.Store) {
	rf := capability[holomem.RecentEntitiesFacts](t, s)
	ctx := t.Context()
	create(t, s, fact("Grace Hopper wrote COBOL"))
	b1 := create(t, s, fact("Alan Turing broke codes"))
	a2 := create(t, s, fact("Grace Hopper found a moth"))
	a3 := create(t, s, fact("Grace Hopper and Alan Turing never met"))
	got, err := rf.RecentFactIDsByEntities(ctx, "", []string{"Alan Turing", "Nobody Known", "", "grace hopper"}, 2)
	if err != nil {
		t.Fatal(err)
	}
	want := [][]int64{{b1.ID, a3.ID}, nil, nil, {a2.ID, a3.ID}}
	if len(got) != len(want) {
		t.Fatalf("RecentFactIDsByEntities = %v, want %v", got, want)
	}
	for i := range want {
		if !slices.Equal(got[i], want[i]) {
			t.Errorf("RecentFactIDsByEntities[%d] = %v, want %v (all: %v)", i, got[i], want[i], got)
		}
	}
	if got, err := rf.RecentFactIDsByEntities(ctx, "", nil, 2); err != nil || len(got) != 0 {
		t.Errorf("RecentFactIDsByEntities(no names) = %v, %v", got, err)
	}
}

// testPrepareFacts: a prepared batch is written by its write, with the
// duplicate rules of CreateFacts, and a caller's extraction is accepted.
func testPrepareFacts(t *testing.T, s holomem.Store) {
	p := capability[holomem.FactPreparer[*text.Extraction]](t, s)
	ctx := t.Context()
	existing := create(t, s, fact("we deploy on Fridays"))
	fs := []*holomem.Fact{fact("Grace Hopper wrote COBOL"), fact("we deploy on Fridays"), fact("Alan Turing broke codes")}
	known := []*text.Extraction{{Content: fs[0].Content, Entities: text.Extract(fs[0].Content, nil)}, nil, nil}
	write, err := p.PrepareFacts(fs, known)
	if err != nil {
		t.Fatal(err)
	}
	if _, n, err := s.FindFacts(ctx, holomem.FactFilter{}); err != nil || n != 1 {
		t.Fatalf("before the write the store holds %d facts, %v; want 1", n, err)
	}
	created, err := write(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(created, []bool{true, false, true}) {
		t.Errorf("created = %v, want [true false true]", created)
	}
	if fs[1].ID != existing.ID || fs[0].ID == 0 || fs[2].ID == 0 {
		t.Errorf("ids %d %d %d; want the duplicate to get #%d", fs[0].ID, fs[1].ID, fs[2].ID, existing.ID)
	}
	ids, err := s.FactIDsByEntity(ctx, "", "Grace Hopper")
	if err != nil || !slices.Equal(ids, []int64{fs[0].ID}) {
		t.Errorf("FactIDsByEntity(Grace Hopper) = %v, %v; want [%d]", ids, err, fs[0].ID)
	}
}

// testPrepareFactsInvalid: an invalid fact fails the preparation, before
// anything is written.
func testPrepareFactsInvalid(t *testing.T, s holomem.Store) {
	p := capability[holomem.FactPreparer[*text.Extraction]](t, s)
	_, err := p.PrepareFacts([]*holomem.Fact{fact("fine"), fact("   ")}, nil)
	if !errors.Is(err, holomem.ErrInvalid) {
		t.Fatalf("PrepareFacts(empty content) = %v, want ErrInvalid", err)
	}
}
