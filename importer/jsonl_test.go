package importer_test

import (
	"bytes"
	"errors"
	"reflect"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/holomem/holomem"
	"github.com/holomem/holomem/importer"
)

func fixedNow() time.Time { return time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC) }

// exportFacts is a small store's content: facts with and without external
// keys, an embedding, an anchor, a superseded fact, and edges between them.
func exportFacts() ([]*holomem.Fact, []*holomem.Edge) {
	t0 := time.Date(2025, 5, 6, 7, 8, 9, 123456789, time.UTC)
	facts := []*holomem.Fact{
		{
			ID: 3, Namespace: "default", Content: "#12 Crash on start\n\nnil config", Category: "issue",
			Tags: []string{"bug"}, Source: "import:github", ExternalKey: "github:acme/app#12",
			Trust: 0.55, RetrievalCount: 4, HelpfulCount: 1, CreatedAt: t0, UpdatedAt: t0.Add(time.Hour),
			Entities: []string{"#12"},
		},
		{
			ID: 5, Namespace: "proj", Content: "Use tabs in Makefiles", Category: "user_pref",
			Trust: 0.9, UnhelpfulCount: 2, CreatedAt: t0, UpdatedAt: t0,
			Anchor:  &holomem.Anchor{Path: "Makefile", Hash: strings.Repeat("ab", 32)},
			ModelID: "minilm@1", Embedding: []float32{0.1, -0.25, 1e-7, 0.33333334},
		},
		{
			ID: 8, Namespace: "proj", Content: "Use spaces in Makefiles (old)", Category: "user_pref",
			Trust: 0.3, CreatedAt: t0, UpdatedAt: t0, SupersededBy: 5,
		},
		{
			ID: 9, Namespace: "default", Content: "PR 13 fixes #12 — ünïcödé ✓", Category: "pr",
			ExternalKey: "github:acme/app#13", Trust: 0.5, CreatedAt: t0.In(time.FixedZone("X", 3600)), UpdatedAt: t0,
		},
	}
	edges := []*holomem.Edge{
		{From: 3, To: 9, Kind: holomem.EdgeCausal, Weight: 1, Origin: holomem.OriginImport, CreatedAt: t0},
		{From: 5, To: 8, Kind: holomem.EdgeSupersedes, Weight: 1, Origin: holomem.OriginUser, CreatedAt: t0},
		{From: 5, To: 3, Kind: "my-kind", Weight: 0.25, Origin: holomem.OriginAuto, CreatedAt: t0},
	}
	return facts, edges
}

func export(t testing.TB, facts []*holomem.Fact, edges []*holomem.Edge) []byte {
	t.Helper()
	var buf bytes.Buffer
	w := importer.NewJSONLWriter(&buf)
	w.Now = fixedNow
	for _, f := range facts {
		if err := w.WriteFact(f); err != nil {
			t.Fatal(err)
		}
	}
	for _, e := range edges {
		if err := w.WriteEdge(e); err != nil {
			t.Fatal(err)
		}
	}
	if err := w.Flush(); err != nil {
		t.Fatal(err)
	}
	return buf.Bytes()
}

// reimport plays a fresh store: it gives facts new ids (old id * 100) and
// resolves links through the record keys, as the package doc says.
func reimport(t testing.TB, data []byte) ([]*holomem.Fact, []*holomem.Edge, importer.Summary) {
	t.Helper()
	ids := map[string]int64{}
	var facts []*holomem.Fact
	var links []importer.Link
	sum, err := importer.JSONL(bytes.NewReader(data), func(r importer.Record) error {
		if r.Fact != nil {
			if r.Fact.ID != 0 {
				t.Fatalf("record fact has id %d", r.Fact.ID)
			}
			f := *r.Fact
			f.ID = r.OldID * 100
			ids[r.Key] = f.ID
			facts = append(facts, &f)
		}
		links = append(links, r.Links...)
		return nil
	})
	if err != nil {
		t.Fatalf("JSONL: %v", err)
	}
	var edges []*holomem.Edge
	seen := map[[3]any]bool{}
	for _, l := range links {
		from, to := ids[l.FromKey], ids[l.ToKey]
		if from == 0 || to == 0 {
			t.Fatalf("unresolved link %+v", l)
		}
		if l.Kind == holomem.EdgeSupersedes {
			// Store.Supersede sets superseded_by on the older fact.
			for _, f := range facts {
				if f.ID == to {
					f.SupersededBy = from
				}
			}
		}
		k := [3]any{from, to, l.Kind}
		if seen[k] {
			continue // the store reports an existing edge as not created
		}
		seen[k] = true
		edges = append(edges, &holomem.Edge{From: from, To: to, Kind: l.Kind, Weight: l.Weight, Origin: l.Origin, CreatedAt: l.CreatedAt})
	}
	return facts, edges, sum
}

func TestJSONL_RoundTrip(t *testing.T) {
	facts, edges := exportFacts()
	first := export(t, facts, edges)
	got, gotEdges, sum := reimport(t, first)
	if sum.Skipped != 0 || sum.Records != len(facts) {
		t.Fatalf("summary %+v", sum)
	}
	if got, want := sum.LinksByReason[importer.ReasonExport], len(edges); got != want {
		t.Errorf("export links = %d, want %d", got, want)
	}
	// Compare fact by fact, ids mapped.
	for i, f := range facts {
		want := *f
		want.ID *= 100
		want.SupersededBy *= 100
		g := *got[i]
		if !g.CreatedAt.Equal(want.CreatedAt) || !g.UpdatedAt.Equal(want.UpdatedAt) {
			t.Errorf("fact %d times %v/%v, want %v/%v", f.ID, g.CreatedAt, g.UpdatedAt, want.CreatedAt, want.UpdatedAt)
		}
		g.CreatedAt, g.UpdatedAt, want.CreatedAt, want.UpdatedAt = time.Time{}, time.Time{}, time.Time{}, time.Time{}
		if !reflect.DeepEqual(g, want) {
			t.Errorf("fact %d:\n got %+v\nwant %+v", f.ID, g, want)
		}
	}
	for i, e := range edges {
		want := *e
		want.From, want.To = e.From*100, e.To*100
		if !reflect.DeepEqual(*gotEdges[i], want) {
			t.Errorf("edge %d:\n got %+v\nwant %+v", i, *gotEdges[i], want)
		}
	}
	// Export the re-imported store again: the same bytes up to the ids.
	for _, f := range got {
		f.ID /= 100
		f.SupersededBy /= 100
	}
	for _, e := range gotEdges {
		e.From, e.To = e.From/100, e.To/100
	}
	if second := export(t, got, gotEdges); !bytes.Equal(first, second) {
		t.Errorf("second export differs:\n%s\n---\n%s", first, second)
	}
}

func TestJSONL_Format(t *testing.T) {
	facts, edges := exportFacts()
	lines := strings.Split(strings.TrimSpace(string(export(t, facts[:1], edges[:0]))), "\n")
	if got, want := lines[0], `{"type":"header","format":"holomem-jsonl","version":1,"exported_at":"2026-01-02T03:04:05Z"}`; got != want {
		t.Errorf("header = %s\nwant %s", got, want)
	}
	if !strings.HasPrefix(lines[1], `{"type":"fact","id":3,"namespace":"default",`) {
		t.Errorf("fact line = %s", lines[1])
	}
	var buf bytes.Buffer
	if err := importer.NewJSONLWriter(&buf).Flush(); err != nil || !strings.Contains(buf.String(), `"type":"header"`) {
		t.Errorf("empty export = %q, %v", buf.String(), err)
	}
}

func TestJSONL_Malformed(t *testing.T) {
	in := strings.Join([]string{
		`{"type":"header","format":"holomem-jsonl","version":1}`,
		`{"type":"fact","id":1,"content":"good one","trust":0.5}`,
		`{"type":"fact","id":2,"content":"truncated`,
		`not json`,
		`{"type":"fact","id":3,"content":"   ","trust":0.5}`,
		`{"type":"fact","id":4,"content":"bad trust","trust":7}`,
		`{"type":"mystery"}`,
		`{"type":"edge","from":1,"to":1,"kind":"causal","weight":1}`,
		`{"type":"edge","from":1,"to":5,"kind":"Bad Kind","weight":1}`,
		`{"type":"fact","id":1,"content":"same id","trust":0.5}`,
		``,
		`{"type":"fact","id":5,"content":"good two","trust":0.5}`,
		`{"type":"edge","from":1,"to":5,"kind":"causal","weight":1}`,
		`{"type":"edge","from":1,"to":77,"to_key":"github:o/r#7","kind":"causal","weight":1}`,
		`{"content":"no type"}`,
		`{"type":"fact","id":6,"content":"last line without newline","trust":0.5}`,
	}, "\n")
	var keys []string
	var links []string
	sum, err := importer.JSONL(strings.NewReader(in), func(r importer.Record) error {
		if r.Fact != nil {
			keys = append(keys, r.Key)
		}
		for _, l := range r.Links {
			links = append(links, l.FromKey+">"+l.ToKey)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if want := []string{"id:1", "id:5", "id:6"}; !slices.Equal(keys, want) {
		t.Errorf("keys = %q, want %q", keys, want)
	}
	if want := []string{"id:1>id:5", "id:1>github:o/r#7"}; !slices.Equal(links, want) {
		t.Errorf("links = %q, want %q", links, want)
	}
	var lines []int
	for _, s := range sum.Skips {
		lines = append(lines, s.Line)
	}
	if want := []int{3, 4, 5, 6, 7, 8, 9, 10, 15}; !slices.Equal(lines, want) {
		t.Errorf("skip lines = %v, want %v\n%v", lines, want, sum.Skips)
	}
}

func TestJSONL_NewerVersion(t *testing.T) {
	in := `{"type":"header","format":"holomem-jsonl","version":99}` + "\n"
	_, err := importer.JSONL(strings.NewReader(in), func(importer.Record) error { return nil })
	if !errors.Is(err, holomem.ErrInvalid) {
		t.Fatalf("err = %v, want ErrInvalid", err)
	}
}

func FuzzJSONL(f *testing.F) {
	facts, edges := exportFacts()
	f.Add(string(export(f, facts, edges)))
	f.Add(`{"type":"fact","id":1,"content":"x","trust":0.5,"superseded_by":2}` + "\n" + `{"type":"fact","id":2,"content":"y"}`)
	f.Add(`{"type":"edge","from":1,"to":2,"kind":"causal","weight":1e308}`)
	f.Add("{\"type\":\"fact\"\n\n\x00")
	f.Add(`{"type":"fact","id":1,"content":"x","tags":[]}`)
	f.Add(`{"type":"fact","id":1,"content":"x","tags":null}`)
	f.Fuzz(func(t *testing.T, in string) {
		var recs []importer.Record
		sum, err := importer.JSONL(strings.NewReader(in), func(r importer.Record) error {
			recs = append(recs, r)
			return nil
		})
		if err != nil {
			if !errors.Is(err, holomem.ErrInvalid) {
				t.Fatalf("unexpected error %v", err)
			}
			return
		}
		var facts []*holomem.Fact
		var es []*holomem.Edge
		old := map[string]int64{}
		for _, r := range recs {
			if r.Fact != nil {
				if err := r.Fact.Validate(); err != nil || r.Fact.ID != 0 || r.OldID <= 0 {
					t.Fatalf("bad record %+v: %v", r, err)
				}
				f := *r.Fact
				f.ID = r.OldID
				old[r.Key] = r.OldID
				facts = append(facts, &f)
			}
			for _, l := range r.Links {
				if err := l.Kind.Validate(); err != nil {
					t.Fatalf("bad link kind: %v", err)
				}
				if l.Reason == importer.ReasonExport && old[l.FromKey] > 0 && old[l.ToKey] > 0 {
					es = append(es, &holomem.Edge{From: old[l.FromKey], To: old[l.ToKey], Kind: l.Kind, Weight: l.Weight, Origin: l.Origin, CreatedAt: l.CreatedAt})
				}
			}
		}
		if sum.Records != len(facts) {
			t.Fatalf("summary %d records, got %d", sum.Records, len(facts))
		}
		// Round trip: what was accepted exports and re-imports unchanged.
		data := export(t, facts, es)
		var again []importer.Record
		sum2, err := importer.JSONL(bytes.NewReader(data), func(r importer.Record) error {
			again = append(again, r)
			return nil
		})
		if err != nil || sum2.Skipped != 0 || sum2.Records != len(facts) {
			t.Fatalf("re-import: %v, %+v", err, sum2)
		}
		i := 0
		for _, r := range again {
			if r.Fact == nil {
				continue
			}
			want := *facts[i]
			want.ID, want.SupersededBy = 0, 0
			got := *r.Fact
			if !got.CreatedAt.Equal(want.CreatedAt) || !got.UpdatedAt.Equal(want.UpdatedAt) {
				t.Fatalf("times changed")
			}
			got.CreatedAt, got.UpdatedAt, want.CreatedAt, want.UpdatedAt = time.Time{}, time.Time{}, time.Time{}, time.Time{}
			if !reflect.DeepEqual(got, want) {
				t.Fatalf("fact changed:\n got %+v\nwant %+v", got, want)
			}
			i++
		}
	})
}

func TestJSONL_SameKeyTwoNamespaces(t *testing.T) {
	t0 := time.Date(2025, 1, 1, 0, 0, 0, 0, time.UTC)
	facts := []*holomem.Fact{
		{ID: 1, Namespace: "a", Content: "x", ExternalKey: "github:o/r#1", Trust: 0.5, CreatedAt: t0, UpdatedAt: t0},
		{ID: 2, Namespace: "b", Content: "x", ExternalKey: "github:o/r#1", Trust: 0.5, CreatedAt: t0, UpdatedAt: t0},
	}
	_, edges, _ := reimport(t, export(t, facts, []*holomem.Edge{{From: 1, To: 2, Kind: "link", Weight: 1, CreatedAt: t0}}))
	if len(edges) != 1 || edges[0].From != 100 || edges[0].To != 200 {
		t.Fatalf("edges = %+v", edges)
	}
}
