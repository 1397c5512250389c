package retrieve_test

import (
	"context"
	"slices"
	"testing"

	"github.com/holomem/holomem"
	"github.com/holomem/holomem/internal/testkit/testutil"
	"github.com/holomem/holomem/retrieve"
)

func TestMemory_Semantic(t *testing.T) {
	emb := testutil.MustTinyEmbedder(t)
	m, s := testutil.MustOpenMemory(t, retrieve.Options{Embedder: emb})
	ctx := t.Context()
	var facts []*holomem.Fact
	for _, c := range []string{
		"We deploy nginx with Ansible",
		"Alice prefers dark mode",
		"The backup runs every night at 3am",
		"Погода для прогулки сегодня хорошая",
	} {
		facts = append(facts, remember(t, m, c))
	}

	t.Run("VectorsStoredWithModelID", func(t *testing.T) {
		st, err := s.Stats(ctx, "")
		if err != nil {
			t.Fatal(err)
		}
		if got := st.Models[emb.ModelID()]; got != len(facts) {
			t.Errorf("vectors of %s = %d, want %d (models %v)", emb.ModelID(), got, len(facts), st.Models)
		}
	})

	t.Run("AllChannels", func(t *testing.T) {
		res, err := m.Recall(ctx, holomem.Query{Text: "nginx deploy"})
		if err != nil {
			t.Fatal(err)
		}
		if got, want := res.Channels, []holomem.Channel{"fts", "jaccard", "hrr", "semantic"}; !slices.Equal(got, want) {
			t.Errorf("channels = %v, want %v", got, want)
		}
		if !res.Weights.Equal(holomem.DefaultWeights()) {
			t.Errorf("weights = %+v, want the defaults", res.Weights)
		}
		if len(res.Hits) == 0 || res.Hits[0].Fact.ID != facts[0].ID || res.Hits[0].Scores[holomem.ChannelSemantic] == 0 {
			t.Errorf("hits = %+v", res.Hits)
		}
	})

	t.Run("FTSEmptyAnsweredBySemantic", func(t *testing.T) {
		// No token of this query is in any fact: full text finds nothing,
		// the semantic channel alone must still answer.
		res, err := m.Recall(ctx, holomem.Query{Text: "zzqx unrelatedword", MinTrust: new(float64)})
		if err != nil {
			t.Fatal(err)
		}
		if len(res.Hits) == 0 {
			t.Fatal("no hits: semantic candidates were not used when FTS was empty")
		}
		for _, h := range res.Hits {
			if h.Scores[holomem.ChannelFTS] != 0 || h.Scores[holomem.ChannelSemantic] <= 0 {
				t.Errorf("hit %d scores %+v: want semantic only", h.Fact.ID, h.Scores)
			}
		}
	})

	t.Run("OtherModelNeverCompared", func(t *testing.T) {
		other := &holomem.Fact{Content: "a fact embedded by another model"}
		if _, err := s.CreateFact(ctx, other); err != nil {
			t.Fatal(err)
		}
		if err := s.SetEmbeddings(ctx, "other-model", map[int64][]float32{other.ID: make([]float32, emb.Dim())}); err != nil {
			t.Fatal(err)
		}
		m2, err := retrieve.New(s, retrieve.Options{Embedder: emb})
		if err != nil {
			t.Fatal(err)
		}
		res, err := m2.Recall(ctx, holomem.Query{Text: "qqqq vvvv", Limit: 50, MinTrust: new(float64)})
		if err != nil {
			t.Fatal(err)
		}
		for _, h := range res.Hits {
			if h.Fact.ID == other.ID {
				t.Errorf("fact with a vector of another model was scored semantically: %+v", h.Scores)
			}
		}
		// Backfill moves it to the current model.
		n, err := m2.Backfill(ctx, nil)
		if err != nil {
			t.Fatal(err)
		}
		if n < 1 {
			t.Errorf("backfill changed %d facts, want >= 1", n)
		}
		got, _, _ := s.FindFacts(ctx, holomem.FactFilter{IDs: []int64{other.ID}, WithEmbedding: true})
		if len(got) != 1 || got[0].ModelID != emb.ModelID() {
			t.Errorf("after backfill model = %+v", got)
		}
	})
}

// TestMemory_Refresh: a fact written by another process (here another
// Memory over the same store) becomes searchable after a forced refresh,
// and a write made through this Memory is never lost by one.
func TestMemory_Refresh(t *testing.T) {
	emb := testutil.MustTinyEmbedder(t)
	m, s := testutil.MustOpenMemory(t, retrieve.Options{Embedder: emb})
	ctx := t.Context()
	remember(t, m, "first fact about caching")
	if err := m.Warm(ctx); err != nil {
		t.Fatal(err)
	}
	other, err := retrieve.New(s, retrieve.Options{Embedder: emb})
	if err != nil {
		t.Fatal(err)
	}
	late := remember(t, other, "qqzz written by another process")
	zero := 0.0
	q := holomem.Query{Text: "wwyy vvxx", Limit: 10, MinTrust: &zero, NoTouch: true}
	has := func() bool {
		res, err := m.Recall(ctx, q)
		if err != nil {
			t.Fatal(err)
		}
		return slices.Contains(ids(res.Hits), late.ID)
	}
	if has() {
		t.Fatal("fact from another process visible before refresh: the index was refetched per query")
	}
	if err := m.Refresh(ctx); err != nil {
		t.Fatal(err)
	}
	if !has() {
		t.Fatal("fact from another process not visible after Refresh")
	}
}

// writeCounter is a real store that counts the write transactions
// Remember could use.
type writeCounter struct {
	holomem.Store
	creates, vectors int
}

func (w *writeCounter) CreateFact(ctx context.Context, f *holomem.Fact) (bool, error) {
	w.creates++
	return w.Store.CreateFact(ctx, f)
}

func (w *writeCounter) SetEmbeddings(ctx context.Context, model string, vs map[int64][]float32) error {
	w.vectors++
	return w.Store.SetEmbeddings(ctx, model, vs)
}

// TestRemember_OneWrite checks that an add with a model writes the fact,
// its entities and its vector in one transaction, and that the vector is
// stored and searchable.
func TestRemember_OneWrite(t *testing.T) {
	emb := testutil.MustTinyEmbedder(t)
	s := &writeCounter{Store: testutil.MustOpenStore(t)}
	m, err := retrieve.New(s, retrieve.Options{Embedder: emb})
	if err != nil {
		t.Fatal(err)
	}
	defer m.Close()
	f := remember(t, m, "We deploy nginx with Ansible")
	if s.creates != 1 || s.vectors != 0 {
		t.Errorf("Remember wrote %d facts and %d vector batches, want 1 and 0", s.creates, s.vectors)
	}
	got, _, err := s.FindFacts(t.Context(), holomem.FactFilter{IDs: []int64{f.ID}, WithEmbedding: true})
	if err != nil || len(got) != 1 || len(got[0].Embedding) != emb.Dim() || got[0].ModelID != emb.ModelID() {
		t.Fatalf("stored fact: %+v, %v; want its %d-d vector of %s", got, err, emb.Dim(), emb.ModelID())
	}
	res, err := m.Recall(t.Context(), holomem.Query{Text: "zzqx unrelatedword", MinTrust: new(float64)})
	if err != nil || len(res.Hits) == 0 || res.Hits[0].Fact.ID != f.ID {
		t.Errorf("semantic recall after Remember: %+v, %v", res, err)
	}
}
