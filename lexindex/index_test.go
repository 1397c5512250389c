package lexindex

import (
	"context"
	"errors"
	"fmt"
	"math/rand"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/holomem/holomem/text"
)

func doc(id int64, ns string, sup bool, content string, tags ...string) Doc {
	return Doc{ID: id, Namespace: ns, Superseded: sup, Terms: TermsOf(content, tags)}
}

// TestTermsOf checks the terms against stemming every token by hand.
func TestTermsOf(t *testing.T) {
	cases := []struct {
		name    string
		content string
		tags    []string
	}{
		{"empty", "", nil},
		{"english", "Alice deployed the billing services; billing deploys fail", nil},
		{"tags", "Bob reviews the payments service", []string{"review", "payments"}},
		{"stop words only", "the and of", nil},
		{"cyrillic", "Алиса развернула сервисы оплаты", nil},
		{"many stems", strings.Join(words, " "), nil},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			got := TermsOf(tc.content, tc.tags)
			body := strings.Join(append([]string{tc.content}, tc.tags...), " ")
			toks := text.Tokens(body)
			want := map[string]int{}
			var order []string
			for _, tok := range toks {
				st := text.Stem(tok)
				if want[st] == 0 {
					order = append(order, st)
				}
				want[st]++
			}
			if got.Len != len(toks) || len(got.Stems) != len(order) {
				t.Fatalf("len %d, %d stems; want %d, %d", got.Len, len(got.Stems), len(toks), len(order))
			}
			for i, sc := range got.Stems {
				if sc.Stem != order[i] || sc.Count != want[sc.Stem] {
					t.Errorf("stem %d: %q×%d, want %q×%d", i, sc.Stem, sc.Count, order[i], want[order[i]])
				}
			}
			var set []string
			for _, tok := range text.ContentTokens(tc.content) {
				set = append(set, text.Stem(tok))
			}
			if ws := text.SortedSet(set); !slices.Equal(got.ContentSet, ws) {
				t.Errorf("content set %v, want %v", got.ContentSet, ws)
			}
			var s Stemmer
			if again := s.Terms(tc.content, tc.tags); fmt.Sprint(again) != fmt.Sprint(got) {
				t.Errorf("Stemmer.Terms %v, want %v", again, got)
			}
		})
	}
}

func TestIndex_Search(t *testing.T) {
	x := New()
	x.Put(doc(1, "a", false, "alice deployed nginx on monday"))
	x.Put(doc(2, "a", false, "bob deploys postgres; postgres deploys are slow"))
	x.Put(doc(3, "a", true, "carol deployed nginx"))
	x.Put(doc(4, "b", false, "dave deployed nginx"))
	x.Put(doc(5, "a", false, "coffee with alice", "nginx"))
	x.Put(doc(6, "a", false, "Алиса развернула сервисы оплаты"))
	x.Put(doc(7, "a", false, "развертывание сервиса"))

	ids := func(hs []Hit) []int64 {
		var out []int64
		for _, h := range hs {
			out = append(out, h.ID)
		}
		return out
	}
	cases := []struct {
		name string
		q    Query
		k    int
		want []int64
	}{
		{"one word, live only", NewQuery("nginx"), 0, []int64{5, 1}},
		{"superseded on request", Query{Stems: NewQuery("nginx").Stems, IncludeSuperseded: true}, 0, []int64{3, 5, 1}},
		{"stems", NewQuery("deploying"), 0, []int64{2, 1}},
		{"k bounds", NewQuery("deploying"), 1, []int64{2}},
		{"stop words left out", NewQuery("the nginx"), 0, []int64{5, 1}},
		{"unknown word", NewQuery("zebra"), 0, nil},
		{"prefix at half weight", NewQuery("развертывание"), 0, []int64{7, 6}},
		{"empty", Query{}, 0, nil},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			got := x.Search("a", tc.q, tc.k)
			if !slices.Equal(ids(got), tc.want) {
				t.Errorf("got %v, want %v", got, tc.want)
			}
			docs := map[int64]Doc{}
			for _, d := range []Doc{
				doc(1, "a", false, "alice deployed nginx on monday"),
				doc(2, "a", false, "bob deploys postgres; postgres deploys are slow"),
				doc(3, "a", true, "carol deployed nginx"),
				doc(4, "b", false, "dave deployed nginx"),
				doc(5, "a", false, "coffee with alice", "nginx"),
				doc(6, "a", false, "Алиса развернула сервисы оплаты"),
				doc(7, "a", false, "развертывание сервиса"),
			} {
				docs[d.ID] = d
			}
			if want := bruteSearch(docs, "a", tc.q, tc.k); !slices.Equal(got, want) {
				t.Errorf("got %v, brute force %v", got, want)
			}
		})
	}
	t.Run("other namespace", func(t *testing.T) {
		if got := ids(x.Search("b", NewQuery("nginx"), 0)); !slices.Equal(got, []int64{4}) {
			t.Errorf("got %v, want [4]", got)
		}
		if got := x.Search("nope", NewQuery("nginx"), 0); got != nil {
			t.Errorf("unknown namespace: got %v", got)
		}
	})
	t.Run("Stats", func(t *testing.T) {
		n, df := x.Stats([]string{text.Stem("nginx"), text.Stem("deploy"), "zebra"})
		if n != 7 || !slices.Equal(df, []int64{4, 4, 0}) {
			t.Errorf("Stats = %d %v, want 7 [4 4 0]", n, df)
		}
	})
}

func TestIndex_PutDelete(t *testing.T) {
	x := New()
	x.Put(doc(1, "a", false, "alice nginx"))
	x.Put(doc(2, "a", false, "bob nginx"))
	if got := x.Len(); got != 2 {
		t.Fatalf("Len %d, want 2", got)
	}
	x.Put(doc(1, "a", false, "alice postgres")) // replace
	if got := x.Search("a", NewQuery("nginx"), 0); len(got) != 1 || got[0].ID != 2 {
		t.Errorf("after replace: %v, want [2]", got)
	}
	if n, df := x.Stats([]string{"nginx"}); n != 2 || df[0] != 1 {
		t.Errorf("Stats after replace: %d %v, want 2 [1]", n, df)
	}
	x.Put(doc(2, "a", true, "bob nginx")) // superseded in place
	if got := x.Search("a", NewQuery("nginx"), 0); len(got) != 0 {
		t.Errorf("superseded fact found: %v", got)
	}
	if !x.SetSuperseded(2, false) || x.SetSuperseded(99, true) {
		t.Error("SetSuperseded reported the wrong facts")
	}
	if got := x.Search("a", NewQuery("nginx"), 0); len(got) != 1 {
		t.Errorf("live again: %v", got)
	}
	if !x.Delete(2) || x.Delete(2) {
		t.Error("Delete reported the wrong facts")
	}
	if got := x.Search("a", NewQuery("nginx"), 0); len(got) != 0 || x.Len() != 1 {
		t.Errorf("after delete: %v, Len %d", got, x.Len())
	}
	// Compaction keeps what is live.
	x.mu.Lock()
	x.compactLocked()
	x.mu.Unlock()
	if got := x.Search("a", NewQuery("postgres"), 0); len(got) != 1 || got[0].ID != 1 {
		t.Errorf("after compaction: %v", got)
	}
}

// TestIndex_SearchBruteForce compares Search with a brute-force BM25 over
// generated docs in two namespaces, with replaces, deletes and compaction.
func TestIndex_SearchBruteForce(t *testing.T) {
	r := rand.New(rand.NewSource(1))
	z := newZipf(r)
	x := New()
	x.compactMin = 20
	docs := map[int64]Doc{}
	for i := range 600 {
		id := int64(r.Intn(500) + 1)
		if i%7 == 3 {
			x.Delete(id)
			delete(docs, id)
			continue
		}
		d := doc(id, []string{"a", "b"}[r.Intn(2)], r.Intn(5) == 0, genText(r, z, 5+r.Intn(40)))
		x.Put(d)
		docs[id] = d
	}
	if got, want := x.Len(), len(docs); got != want {
		t.Fatalf("Len %d, want %d", got, want)
	}
	for i := range 300 {
		q := NewQuery(genText(r, z, 1+r.Intn(4)))
		q.IncludeSuperseded = i%3 == 0
		k := []int{0, 1, 10, 50}[i%4]
		ns := []string{"a", "b"}[i%2]
		got, want := x.Search(ns, q, k), bruteSearch(docs, ns, q, k)
		if !slices.Equal(got, want) {
			t.Fatalf("query %+v k %d:\n got  %v\n want %v", q, k, got, want)
		}
	}
}

// FuzzIndex runs random puts, deletes and searches and checks every search
// against brute force.
func FuzzIndex(f *testing.F) {
	f.Add([]byte{0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 200, 3, 1, 250, 4})
	f.Add([]byte("put delete search alice nginx развернула"))
	f.Fuzz(func(t *testing.T, ops []byte) {
		x := New()
		x.compactMin = 2
		docs := map[int64]Doc{}
		next := func() byte {
			if len(ops) == 0 {
				return 0
			}
			b := ops[0]
			ops = ops[1:]
			return b
		}
		pick := func(n int) string {
			var ws []string
			for range n {
				ws = append(ws, words[int(next())%len(words)])
			}
			return strings.Join(ws, " ")
		}
		for len(ops) > 0 {
			op, id := next(), int64(next()%16)
			switch op % 4 {
			case 0, 1:
				d := doc(id, []string{"a", "b"}[op>>2&1], op>>3&1 == 1, pick(int(next()%8)))
				x.Put(d)
				docs[id] = d
			case 2:
				if got, want := x.Delete(id), hasID(docs, id); got != want {
					t.Fatalf("Delete(%d) = %v, want %v", id, got, want)
				}
				delete(docs, id)
			case 3:
				q := NewQuery(pick(1 + int(next()%3)))
				q.IncludeSuperseded = op>>2&1 == 1
				k := int(next() % 5)
				if got, want := x.Search("a", q, k), bruteSearch(docs, "a", q, k); !slices.Equal(got, want) {
					t.Fatalf("Search %+v k %d:\n got  %v\n want %v", q, k, got, want)
				}
			}
			if got, want := x.Len(), len(docs); got != want {
				t.Fatalf("Len %d, want %d", got, want)
			}
		}
	})
}

func hasID(docs map[int64]Doc, id int64) bool { _, ok := docs[id]; return ok }

// TestIndex_Concurrent runs puts, deletes and searches at once (run with
// -race).
func TestIndex_Concurrent(t *testing.T) {
	x := New()
	x.compactMin = 10
	var wg sync.WaitGroup
	for w := range 4 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			r := rand.New(rand.NewSource(int64(w)))
			z := newZipf(r)
			for i := range 400 {
				id := int64(r.Intn(200))
				switch {
				case w%2 == 0 && i%5 == 0:
					x.Delete(id)
				case w%2 == 0:
					x.Put(doc(id, "a", false, genText(r, z, 20)))
				default:
					hs := x.Search("a", NewQuery(genText(r, z, 2)), 10)
					for j := 1; j < len(hs); j++ {
						if better(hs[j], hs[j-1]) {
							t.Errorf("hits out of order: %v", hs)
							return
						}
					}
					x.Similar("a", strings.Fields(genText(r, z, 6)), 20, 50)
					x.Stats([]string{"nginx"})
				}
			}
		}()
	}
	wg.Wait()
}

// TestIndex_Load checks that a bulk load holds what putting every fact
// one by one holds: the same searches, statistics and similar facts, with
// enough new stems that prefix expansion reads the sorted vocabulary.
func TestIndex_Load(t *testing.T) {
	r := rand.New(rand.NewSource(3))
	z := newZipf(r)
	var fs []Fact
	for i := range 3000 {
		f := Fact{
			ID:         int64(i%2900 + 1), // the last 100 replace earlier ones
			Namespace:  []string{"a", "b"}[r.Intn(2)],
			Superseded: r.Intn(6) == 0,
			Content:    fmt.Sprintf("%s unique%d развертыван%d", genText(r, z, 3+r.Intn(20)), i, i%50),
		}
		if r.Intn(5) == 0 {
			f.Tags = []string{"tag" + fmt.Sprint(i%7)}
		}
		fs = append(fs, f)
	}
	loaded := New()
	if err := loaded.Load(t.Context(), slices.Values(fs), 2); err != nil {
		t.Fatal(err)
	}
	put := New()
	for _, f := range fs {
		put.Put(Doc{ID: f.ID, Namespace: f.Namespace, Superseded: f.Superseded, Terms: TermsOf(f.Content, f.Tags)})
	}
	if got, want := loaded.Len(), put.Len(); got != want || got != 2900 {
		t.Fatalf("Len %d, want %d (2900)", got, want)
	}
	for i := range 200 {
		q := NewQuery(genText(r, z, 1+r.Intn(3)) + " развертывание unique" + fmt.Sprint(r.Intn(3000)))
		q.IncludeSuperseded = i%2 == 0
		ns := []string{"a", "b"}[i%2]
		if got, want := loaded.Search(ns, q, 20), put.Search(ns, q, 20); !slices.Equal(got, want) {
			t.Fatalf("Search %v:\n loaded %v\n put    %v", q, got, want)
		}
		terms := strings.Fields(genText(r, z, 6))
		if got, want := loaded.Similar(ns, terms, 10, 50), put.Similar(ns, terms, 10, 50); !slices.Equal(got, want) {
			t.Fatalf("Similar %q:\n loaded %v\n put    %v", terms, got, want)
		}
	}
	n1, df1 := loaded.Stats(NewQuery("nginx deploy развертывание").Stems)
	n2, df2 := put.Stats(NewQuery("nginx deploy развертывание").Stems)
	if n1 != n2 || !slices.Equal(df1, df2) {
		t.Errorf("Stats: loaded %d %v, put %d %v", n1, df1, n2, df2)
	}

	t.Run("ErrCanceled", func(t *testing.T) {
		ctx, cancel := context.WithCancel(t.Context())
		cancel()
		if err := New().Load(ctx, slices.Values(fs), 1); !errors.Is(err, context.Canceled) {
			t.Errorf("Load with a canceled context: %v", err)
		}
	})
}

// TestIndex_LargeCounts checks a count too large for a posting's 16 bits
// (a word repeated 70,000 times in one fact) through search, compaction
// and an in-place update.
func TestIndex_LargeCounts(t *testing.T) {
	big := Doc{ID: 1, Namespace: "a", Terms: Terms{Stems: []StemCount{{"spam", 70000}, {"ham", 1}}, Len: 70001}}
	small := doc(2, "a", false, "spam ham eggs")
	x := New()
	x.compactMin = 0
	docs := map[int64]Doc{1: big, 2: small}
	x.Put(big)
	x.Put(small)
	x.Put(doc(3, "a", false, "eggs"))
	x.Put(doc(4, "a", false, "eggs"))
	x.Delete(3)
	x.Delete(4) // compacts: more than a third of the slots are tombstones
	if x.mu.Lock(); len(x.ids) != 2 {
		t.Errorf("%d slots after deletes, want 2 (compacted)", len(x.ids))
	}
	x.mu.Unlock()
	q := NewQuery("spam ham")
	if got, want := x.Search("a", q, 0), bruteSearch(docs, "a", q, 0); !slices.Equal(got, want) {
		t.Errorf("Search %v, want %v", got, want)
	}
	x.Put(big) // the same terms: updated in place
	if got, want := x.Search("a", q, 0), bruteSearch(docs, "a", q, 0); !slices.Equal(got, want) {
		t.Errorf("after an in-place put: %v, want %v", got, want)
	}
}
