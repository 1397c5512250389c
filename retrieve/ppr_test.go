package retrieve_test

import (
	"context"
	"fmt"
	"math"
	"math/rand/v2"
	"testing"

	"github.com/holomem/holomem"
	"github.com/holomem/holomem/internal/testkit/testutil"
	"github.com/holomem/holomem/retrieve"
)

// fixtureEmbedder returns precomputed vectors for known texts (the way
// chromem-go freezes embeddings in fixtures): the graph tests need vectors
// with a chosen geometry, which no real model gives on demand.
type fixtureEmbedder struct {
	dim  int
	vecs map[string][]float32
}

func (e *fixtureEmbedder) ModelID() string { return "fixture@1#mean" }
func (e *fixtureEmbedder) Dim() int        { return e.dim }
func (e *fixtureEmbedder) Embed(_ context.Context, texts []string) ([][]float32, error) {
	out := make([][]float32, len(texts))
	for i, t := range texts {
		v, ok := e.vecs[t]
		if !ok {
			return nil, fmt.Errorf("%w: no fixture vector for %q", holomem.ErrInvalid, t)
		}
		out[i] = v
	}
	return out, nil
}

func unit(v []float32) []float32 {
	var n float64
	for _, x := range v {
		n += float64(x) * float64(x)
	}
	for i := range v {
		v[i] = float32(float64(v[i]) / math.Sqrt(n))
	}
	return v
}

// TestMemory_PPRBuriedHub: a hub note linked from every note of its topic,
// whose own vector is far from the topic, is ranked low by the other
// channels on a broad query and first with PPR.
func TestMemory_PPRBuriedHub(t *testing.T) {
	const dim, topics, notes = 64, 4, 25
	r := rand.New(rand.NewPCG(3, 4))
	gauss := func(scale float64) []float32 {
		v := make([]float32, dim)
		for i := range v {
			v[i] = float32(r.NormFloat64() * scale)
		}
		return v
	}
	emb := &fixtureEmbedder{dim: dim, vecs: map[string][]float32{}}
	type topic struct {
		query string
		hub   *holomem.Fact
	}
	var ts []topic
	var all []*holomem.Fact
	var links [][2]int // note index -> hub index in all
	for k := range topics {
		centre := gauss(1)
		q := fmt.Sprintf("broad question %d", k)
		emb.vecs[q] = unit(append([]float32(nil), centre...))
		hubText := fmt.Sprintf("index page %d", k)
		hv := gauss(1)
		for i := range hv {
			hv[i] += 0.15 * centre[i]
		}
		emb.vecs[hubText] = unit(hv)
		hub := &holomem.Fact{Content: hubText}
		hubAt := len(all)
		all = append(all, hub)
		ts = append(ts, topic{q, hub})
		for i := range notes {
			c := fmt.Sprintf("note %d %d", k, i)
			v := gauss(0.6)
			for j := range v {
				v[j] += centre[j]
			}
			emb.vecs[c] = unit(v)
			links = append(links, [2]int{len(all), hubAt})
			all = append(all, &holomem.Fact{Content: c})
		}
	}
	m, s := testutil.MustOpenMemory(t, retrieve.Options{Embedder: emb})
	ctx := t.Context()
	if _, err := m.Import(ctx, all); err != nil {
		t.Fatal(err)
	}
	var edges []*holomem.Edge
	for _, l := range links {
		edges = append(edges, &holomem.Edge{From: all[l[0]].ID, To: all[l[1]].ID, Kind: "mentions", Weight: 1})
	}
	if _, err := s.CreateEdges(ctx, edges); err != nil {
		t.Fatal(err)
	}
	mrr := func(ppr bool) float64 {
		sum := 0.0
		for _, tp := range ts {
			res, err := m.Recall(ctx, holomem.Query{Text: tp.query, Limit: 30, PPR: ppr, NoTouch: true})
			if err != nil {
				t.Fatal(err)
			}
			for i, h := range res.Hits {
				if h.Fact.ID == tp.hub.ID {
					sum += 1 / float64(i+1)
					break
				}
			}
		}
		return sum / topics
	}
	without, with := mrr(false), mrr(true)
	t.Logf("buried hub MRR: without PPR %.3f, with PPR %.3f", without, with)
	if without > 0.2 {
		t.Errorf("without PPR the hub already ranks high (MRR %.3f): the fixture is not a buried hub", without)
	}
	if with < 0.9 {
		t.Errorf("with PPR hub MRR = %.3f, want >= 0.9", with)
	}
}

// TestMemory_PPRWeightsReported: with --ppr the weights recall reports are
// the ones relevance is the plain weighted sum of (they sum to 1, PPR 0.8),
// not a raw 4.00 with a hidden division by 5.
func TestMemory_PPRWeightsReported(t *testing.T) {
	m, s := testutil.MustOpenMemory(t, retrieve.Options{})
	ctx := t.Context()
	facts := []*holomem.Fact{{Content: "the deploy runbook for nginx"}, {Content: "nginx config lives in ops repo"}, {Content: "rollback steps"}}
	if _, err := m.Import(ctx, facts); err != nil {
		t.Fatal(err)
	}
	if _, err := s.CreateEdges(ctx, []*holomem.Edge{{From: facts[0].ID, To: facts[2].ID, Kind: "mentions", Weight: 1}}); err != nil {
		t.Fatal(err)
	}
	res, err := m.Recall(ctx, holomem.Query{Text: "nginx deploy", Limit: 10, PPR: true, NoTouch: true})
	if err != nil {
		t.Fatal(err)
	}
	w := res.Weights
	if sum := w[holomem.ChannelFTS] + w[holomem.ChannelJaccard] + w[holomem.ChannelHRR] + w[holomem.ChannelSemantic] + w[holomem.ChannelPPR]; math.Abs(sum-1) > 1e-9 || math.Abs(w[holomem.ChannelPPR]-0.8) > 1e-9 {
		t.Fatalf("weights = %+v (sum %v), want normalised with ppr 0.8", w, sum)
	}
	if len(res.Hits) == 0 {
		t.Fatal("no hits")
	}
	for _, h := range res.Hits {
		sc := h.Scores
		want := sc[holomem.ChannelFTS]*w[holomem.ChannelFTS] + sc[holomem.ChannelJaccard]*w[holomem.ChannelJaccard] + sc[holomem.ChannelHRR]*w[holomem.ChannelHRR] + sc[holomem.ChannelSemantic]*w[holomem.ChannelSemantic] + sc[holomem.ChannelPPR]*w[holomem.ChannelPPR]
		if len(h.Via) == 0 && math.Abs(h.Relevance-want) > 1e-9 {
			t.Errorf("#%d relevance %v, weighted sum of its scores %v", h.Fact.ID, h.Relevance, want)
		}
	}
}
