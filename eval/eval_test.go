package eval

import (
	"bytes"
	"context"
	"errors"
	"math"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/holomem/holomem"
)

func TestScore(t *testing.T) {
	tests := []struct {
		name         string
		ranked, gold []string
		k            int
		recall, hit  float64
		ndcg, rr     float64
	}{
		{"first of one", []string{"a", "b"}, []string{"a"}, 1, 1, 1, 1, 1},
		{"second of one", []string{"b", "a"}, []string{"a"}, 2, 1, 1, 1 / math.Log2(3), 0.5},
		{"missed", []string{"b", "c"}, []string{"a"}, 2, 0, 0, 0, 0},
		{"half of two", []string{"a", "x", "y"}, []string{"a", "b"}, 3, 0.5, 1, 1 / (1 + 1/math.Log2(3)), 1},
		{"beyond k", []string{"x", "a"}, []string{"a"}, 1, 0, 0, 0, 0},
		{"empty", nil, []string{"a"}, 5, 0, 0, 0, 0},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			at, rr, _ := score(tc.ranked, tc.gold, []int{tc.k}, 0)
			a := at[0]
			if !near(a.Recall, tc.recall) || !near(a.Hit, tc.hit) || !near(a.NDCG, tc.ndcg) {
				t.Errorf("at %d = %+v, want recall %v hit %v ndcg %v", tc.k, a, tc.recall, tc.hit, tc.ndcg)
			}
			if tc.k > 1 && !near(rr, tc.rr) {
				t.Errorf("rr = %v, want %v", rr, tc.rr)
			}
		})
	}
}

func near(a, b float64) bool { return math.Abs(a-b) < 1e-9 }

func TestReadJSONL_Errors(t *testing.T) {
	fact := `{"kind":"fact","key":"a","text":"alpha"}` + "\n"
	query := `{"kind":"query","text":"alpha","gold":["a"]}` + "\n"
	tests := []struct{ name, in, want string }{
		{"unknown kind", `{"kind":"x"}`, "line 1"},
		{"bad json", fact + "{", "line 2"},
		{"unknown field", `{"kind":"fact","key":"a","text":"x","oops":1}`, "oops"},
		{"no facts", query, "no facts"},
		{"no queries", fact, "no queries"},
		{"gold missing", fact + `{"kind":"query","text":"q","gold":["b"]}`, `gold key "b"`},
		{"gold other namespace", fact + `{"kind":"query","text":"q","gold":["a"],"namespace":"n"}`, `namespace "n"`},
		{"duplicate key", fact + fact + query, "twice"},
		{"no key", `{"kind":"fact","text":"x"}` + "\n" + query, "no key"},
		{"empty query", fact + `{"kind":"query","text":" ","gold":["a"]}`, "no text"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			_, err := ReadJSONL(strings.NewReader(tc.in), "t")
			if !errors.Is(err, holomem.ErrInvalid) || !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("err = %v, want ErrInvalid mentioning %q", err, tc.want)
			}
		})
	}
}

func TestJSONL_RoundTrip(t *testing.T) {
	d := generated(20)
	var buf bytes.Buffer
	if err := WriteJSONL(&buf, d); err != nil {
		t.Fatal(err)
	}
	got, err := ReadJSONL(&buf, "rt")
	if err != nil {
		t.Fatal(err)
	}
	if len(got.Facts) != len(d.Facts) || len(got.Queries) != len(d.Queries) || !got.Facts[3].Time.Equal(*d.Facts[3].Time) {
		t.Fatalf("round trip lost data: %d facts, %d queries", len(got.Facts), len(got.Queries))
	}
}

func TestBM25(t *testing.T) {
	b := NewBM25([]string{"a", "b", "c"}, []string{
		"The cat sat on the mat", "A dog chased the cat around the cat tree", "Nothing here",
	})
	if got := b.Search("what did the cat do", 10); !slices.Equal(got, []string{"b", "a"}) {
		t.Errorf("cat = %v", got)
	}
	if got := b.Search("the what", 10); len(got) != 0 {
		t.Errorf("stop words only = %v, want nothing", got)
	}
}

func TestReadLoCoMo_Flattened(t *testing.T) {
	dir := t.TempDir()
	turns := `{"conv_id":"c1","dia_id":"D1:1","session":1,"session_date_time":"1:56 pm on 8 May, 2023","speaker":"Ann","text":"I adopted a cat named Tom"}
{"conv_id":"c1","dia_id":"D1:2","session":1,"session_date_time":"1:56 pm on 8 May, 2023","speaker":"Bob","text":"Nice, I prefer dogs"}
`
	qa := `{"conv_id":"c1","qid":"q1","question":"What is Ann's cat called?","answer":"Tom","category":4,"evidence":["D1:1"]}
{"conv_id":"c1","qid":"q2","question":"Unanswerable?","category":5,"evidence":[]}
{"conv_id":"c1","qid":"q3","question":"Both?","answer":"x","category":1,"evidence":["D1:1; D1:2","D9:9"]}
`
	os.WriteFile(filepath.Join(dir, "turns.jsonl"), []byte(turns), 0o600)
	os.WriteFile(filepath.Join(dir, "qa.jsonl"), []byte(qa), 0o600)
	d, err := ReadLoCoMo(dir)
	if err != nil {
		t.Fatal(err)
	}
	if len(d.Facts) != 2 || d.Facts[0].Text != "Ann: I adopted a cat named Tom" || d.Facts[0].Namespace != "c1" {
		t.Fatalf("facts = %+v", d.Facts)
	}
	if !d.Facts[1].Time.After(*d.Facts[0].Time) || d.Facts[0].Time.Year() != 2023 {
		t.Errorf("times = %v, %v", d.Facts[0].Time, d.Facts[1].Time)
	}
	if len(d.Queries) != 2 || d.Queries[0].Category != "single-hop" || !slices.Equal(d.Queries[1].Gold, []string{"D1:1", "D1:2"}) {
		t.Fatalf("queries = %+v", d.Queries)
	}
}

func TestReadLoCoMo_Published(t *testing.T) {
	path := filepath.Join(t.TempDir(), "locomo10.json")
	os.WriteFile(path, []byte(`[{"sample_id":"conv-1","conversation":{"speaker_a":"Ann","speaker_b":"Bob",
		"session_1_date_time":"1:56 pm on 8 May, 2023","session_1":[{"speaker":"Ann","dia_id":"D1:1","text":"I adopted a cat"}],
		"session_2_date_time":"2:00 pm on 9 May, 2023","session_2":[{"speaker":"Bob","dia_id":"D2:1","text":"I bought a bike"}]},
		"qa":[{"question":"What did Bob buy?","answer":"a bike","evidence":["D2:1"],"category":4}]}]`), 0o600)
	d, err := ReadLoCoMo(path)
	if err != nil {
		t.Fatal(err)
	}
	if len(d.Facts) != 2 || d.Facts[1].Key != "D2:1" || d.Facts[1].Time.Day() != 9 || len(d.Queries) != 1 {
		t.Fatalf("dataset = %+v", d)
	}
}

// fakeMemory recalls by BM25 over what it imported, so Run's plumbing can
// be checked against the baseline: both must give the same figures.
type fakeMemory struct {
	facts []*holomem.Fact
}

func (m *fakeMemory) Import(_ context.Context, fs []*holomem.Fact) ([]bool, error) {
	out := make([]bool, len(fs))
	for i, f := range fs {
		f.ID = int64(len(m.facts) + 1)
		m.facts = append(m.facts, f)
		out[i] = true
	}
	return out, nil
}

func (m *fakeMemory) ImportBatches(ctx context.Context, done func([]*holomem.Fact, []bool)) holomem.ImportBatches {
	return &syncBatches{ctx: ctx, m: m, done: done}
}

// syncBatches stores each batch as it is added.
type syncBatches struct {
	ctx  context.Context
	m    *fakeMemory
	done func([]*holomem.Fact, []bool)
}

func (b *syncBatches) Add(fs []*holomem.Fact) error {
	created, err := b.m.Import(b.ctx, fs)
	if err == nil && b.done != nil {
		b.done(fs, created)
	}
	return err
}

func (b *syncBatches) Wait() error { return nil }

func (m *fakeMemory) Recall(_ context.Context, q holomem.Query) (*holomem.Result, error) {
	var keys, texts []string
	byKey := map[string]*holomem.Fact{}
	for _, f := range m.facts {
		if f.Namespace == q.Namespace {
			keys, texts = append(keys, f.ExternalKey), append(texts, f.Content)
			byKey[f.ExternalKey] = f
		}
	}
	res := &holomem.Result{Channels: []holomem.Channel{holomem.ChannelFTS}}
	for _, k := range NewBM25(keys, texts).Search(q.Text, q.Limit) {
		res.Hits = append(res.Hits, holomem.Hit{Fact: byKey[k]})
	}
	return res, nil
}

func TestRun_SameAsBaseline(t *testing.T) {
	rep, err := Run(t.Context(), &fakeMemory{}, generated(60), Config{Ks: []int{10, 1}})
	if err != nil {
		t.Fatal(err)
	}
	if len(rep.Systems) != 2 || rep.RefK != 10 || !slices.Equal(rep.Ks, []int{1, 10}) {
		t.Fatalf("report = %+v", rep)
	}
	b, h := rep.Systems[0], rep.Systems[1]
	if b.Overall.RecallAt(10) == 0 || !near(h.VsBM25, 1) || !near(b.Overall.MRR, h.Overall.MRR) {
		t.Errorf("baseline %+v vs same ranking %+v", b.Overall, h.Overall)
	}
	if len(h.Categories) != 2 {
		t.Errorf("categories = %v", h.Categories)
	}
	var buf bytes.Buffer
	rep.WriteText(&buf)
	if !strings.Contains(buf.String(), "recall@10") || !strings.Contains(buf.String(), "1.000x") {
		t.Errorf("text report:\n%s", buf.String())
	}
}

func TestRun_BadK(t *testing.T) {
	if _, err := Run(t.Context(), &fakeMemory{}, generated(5), Config{Ks: []int{0}}); !errors.Is(err, holomem.ErrInvalid) {
		t.Fatalf("err = %v", err)
	}
}
