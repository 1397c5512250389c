package eval

import (
	"bytes"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/holomem/holomem"
)

// writeBEIR writes a BEIR-format tree into a temporary directory: files
// maps a path under it (corpus.jsonl, queries.jsonl, qrels/test.tsv) to
// its content.
func writeBEIR(t *testing.T, files map[string]string) string {
	t.Helper()
	dir := t.TempDir()
	for name, body := range files {
		p := filepath.Join(dir, name)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(body), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	return dir
}

// generatedBEIR is a small BEIR set: n documents about towns (a title and
// a body), one query per document naming its town, judged relevant with
// score 1 or 2; every third query also judges another document 0 (not
// relevant), and one query has no relevant document.
func generatedBEIR(t *testing.T, n int, header bool) string {
	t.Helper()
	rivers := []string{"Avon", "Severn", "Thames", "Trent", "Tyne", "Wear", "Exe"}
	var corpus, queries, qrels strings.Builder
	if header {
		qrels.WriteString("query-id\tcorpus-id\tscore\n")
	}
	for i := range n {
		town := fmt.Sprintf("Town%c%c", 'a'+i%26, 'a'+i/26)
		fmt.Fprintf(&corpus, `{"_id": "d%d", "title": "%s", "text": "%s lies on the river %s and has a market every week."}`+"\n", i, town, town, rivers[i%len(rivers)])
		fmt.Fprintf(&queries, `{"_id": "q%d", "text": "market in %s"}`+"\n", i, town)
		fmt.Fprintf(&qrels, "q%d\td%d\t%d\n", i, i, 1+i%2)
		if i%3 == 0 {
			fmt.Fprintf(&qrels, "q%d\td%d\t0\n", i, (i+1)%n)
		}
	}
	queries.WriteString(`{"_id": "unjudged", "text": "river"}` + "\n")
	fmt.Fprintf(&queries, `{"_id": "irrelevant", "text": "weekly market"}`+"\n")
	qrels.WriteString("irrelevant\td0\t0\n")
	return writeBEIR(t, map[string]string{"corpus.jsonl": corpus.String(), "queries.jsonl": queries.String(), "qrels/test.tsv": qrels.String()})
}

func TestReadBEIR(t *testing.T) {
	for _, header := range []bool{true, false} {
		t.Run(fmt.Sprintf("header=%v", header), func(t *testing.T) {
			d, err := ReadBEIR(generatedBEIR(t, 30, header))
			if err != nil {
				t.Fatal(err)
			}
			if len(d.Facts) != 30 || len(d.Queries) != 30 {
				t.Fatalf("%d facts, %d queries; want 30 and 30 (queries without a relevant document skipped)", len(d.Facts), len(d.Queries))
			}
			f := d.Facts[4]
			if f.Key != "d4" || f.Category != BEIRCategory || !strings.HasPrefix(f.Text, "Townea\nTownea lies on") {
				t.Errorf("fact = %+v, want the title on the first line", f)
			}
			if q := d.Queries[3]; q.ID != "q3" || !slices.Equal(q.Gold, []string{"d3"}) {
				t.Errorf("query = %+v, want gold d3 only (score 0 is not relevant)", q)
			}
		})
	}
}

func TestReadBEIR_Errors(t *testing.T) {
	ok := map[string]string{
		"corpus.jsonl":   `{"_id": "d1", "title": "", "text": "alpha"}` + "\n",
		"queries.jsonl":  `{"_id": "q1", "text": "alpha"}` + "\n",
		"qrels/test.tsv": "q1\td1\t1\n",
	}
	with := func(name, body string) map[string]string {
		m := map[string]string{}
		for k, v := range ok {
			m[k] = v
		}
		if body == "" {
			delete(m, name)
		} else {
			m[name] = body
		}
		return m
	}
	// invalid: the error is holomem.ErrInvalid (a missing file is not).
	tests := []struct {
		name    string
		files   map[string]string
		want    string
		invalid bool
	}{
		{"no corpus", with("corpus.jsonl", ""), "corpus.jsonl", false},
		{"no qrels", with("qrels/test.tsv", ""), "test.tsv", false},
		{"bad corpus json", with("corpus.jsonl", "{\n"), "corpus.jsonl line 1", true},
		{"document without id", with("corpus.jsonl", `{"text": "x"}`), `no "_id"`, true},
		{"duplicate document", with("corpus.jsonl", ok["corpus.jsonl"]+ok["corpus.jsonl"]), "twice", true},
		{"query without id", with("queries.jsonl", `{"text": "x"}`), `no "_id"`, true},
		{"two columns", with("qrels/test.tsv", "q1\td1\n"), "3 tab-separated", true},
		{"bad score", with("qrels/test.tsv", "q1\td1\t1\nq1\td1\tx\n"), `score "x"`, true},
		{"nothing relevant", with("qrels/test.tsv", "q1\td1\t0\n"), "no query has a judged-relevant", true},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			_, err := ReadBEIR(writeBEIR(t, tc.files))
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("err = %v, want one mentioning %q", err, tc.want)
			}
			if errors.Is(err, holomem.ErrInvalid) != tc.invalid {
				t.Errorf("err = %v: ErrInvalid %v, want %v", err, !tc.invalid, tc.invalid)
			}
		})
	}
}

func TestRun_BEIRPerQuery(t *testing.T) {
	d, err := ReadBEIR(generatedBEIR(t, 40, true))
	if err != nil {
		t.Fatal(err)
	}
	cfg := Config{Ks: []int{10, 100}, Metric: MetricNDCG, MRRK: 10, PerQuery: true, Baselines: []BM25Params{LuceneBM25, ClassicBM25}}
	rep, err := Run(t.Context(), &fakeMemory{}, d, cfg)
	if err != nil {
		t.Fatal(err)
	}
	if rep.Metric != MetricNDCG || rep.MRRK != 10 || len(rep.Baselines) != 2 || len(rep.Systems) != 3 {
		t.Fatalf("report = %+v", rep)
	}
	if rep.Systems[0].Name != "bm25-lucene" || !near(rep.Systems[0].VsBM25, 1) {
		t.Errorf("first system %q vs bm25 %v, want the Lucene baseline at 1", rep.Systems[0].Name, rep.Systems[0].VsBM25)
	}
	if len(rep.PerQuery) != len(d.Queries) {
		t.Fatalf("%d per-query rows, want %d", len(rep.PerQuery), len(d.Queries))
	}
	for _, row := range rep.PerQuery {
		if len(row.Systems) != 3 || row.Gold != 1 {
			t.Fatalf("row = %+v", row)
		}
		// Each query names its town, which only its document holds.
		for _, s := range row.Systems {
			if s.FirstRank != 1 || !near(s.NDCG, 1) {
				t.Errorf("%s on %s (%q): first rank %d, ndcg %v; want 1 and 1", s.System, row.ID, row.Text, s.FirstRank, s.NDCG)
			}
		}
	}
	var buf bytes.Buffer
	rep.WriteText(&buf)
	out := buf.String()
	for _, want := range []string{"mrr@10", "ndcg@10 vs bm25", "k1 0.9, b 0.4", "English Snowball stems", "per query", "market in Townaa"} {
		if !strings.Contains(out, want) {
			t.Errorf("text report lacks %q:\n%s", want, out)
		}
	}
}

func TestRun_BadMetric(t *testing.T) {
	if _, err := Run(t.Context(), &fakeMemory{}, generated(5), Config{Metric: "f1"}); !errors.Is(err, holomem.ErrInvalid) {
		t.Fatalf("err = %v", err)
	}
}

func TestScore_MRRCutoff(t *testing.T) {
	ranked := []string{"x", "y", "z", "a"}
	at, rr, first := score(ranked, []string{"a"}, []int{2, 10}, 3)
	if rr != 0 || first != 4 || at[1].Recall != 1 {
		t.Errorf("rr %v, first %d, recall@10 %v; want 0 (beyond MRR's cut-off 3), 4, 1", rr, first, at[1].Recall)
	}
	if _, rr, _ = score(ranked, []string{"a"}, []int{2, 10}, 0); !near(rr, 0.25) {
		t.Errorf("rr = %v, want 0.25 within the largest k", rr)
	}
}

func TestLuceneBM25_Stems(t *testing.T) {
	b := NewBM25With(LuceneBM25, []string{"a", "b"}, []string{"The runners were running", "A quiet walk"})
	if got := b.Search("run", 10); !slices.Equal(got, []string{"a"}) {
		t.Errorf("stemmed search = %v, want [a]", got)
	}
	if got := NewBM25([]string{"a"}, []string{"The runners were running"}).Search("run", 10); len(got) != 0 {
		t.Errorf("classic (unstemmed) search = %v, want nothing", got)
	}
}

func TestRun_Progress(t *testing.T) {
	last := map[string][2]int{}
	cfg := Config{Progress: func(phase string, done, total int) { last[phase] = [2]int{done, total} }}
	if _, err := Run(t.Context(), &fakeMemory{}, generated(12), cfg); err != nil {
		t.Fatal(err)
	}
	if last["load"] != [2]int{12, 12} || last["ask hybrid"] != [2]int{12, 12} {
		t.Errorf("last progress = %v, want load and ask hybrid at 12 of 12", last)
	}
}
