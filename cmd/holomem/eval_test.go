package main

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// evalFile writes a small generated JSONL data set: facts about people and
// hobbies, one query per fact.
func evalFile(t *testing.T) string {
	t.Helper()
	people := []string{"Alice", "Bob", "Chen", "Dana"}
	things := []string{"guitar", "kayak", "sourdough", "telescope", "chess", "pottery"}
	var b strings.Builder
	for i := range 24 {
		p, th := people[i%len(people)], things[i%len(things)]
		fmt.Fprintf(&b, `{"kind":"fact","key":"k%d","text":"%s practises %s every week (note %d)","time":"2023-0%d-10T10:00:00Z"}`+"\n", i, p, th, i, 1+i%9)
		fmt.Fprintf(&b, `{"kind":"query","id":"q%d","text":"how often does %s practise %s","gold":["k%d"],"category":"c%d"}`+"\n", i, p, th, i, i%2)
	}
	path := filepath.Join(t.TempDir(), "eval.jsonl")
	if err := os.WriteFile(path, []byte(b.String()), 0o600); err != nil {
		t.Fatal(err)
	}
	return path
}

func TestCLI_Eval(t *testing.T) {
	c := newCLI(t)
	path := evalFile(t)
	var rep struct {
		Facts   int `json:"facts"`
		Queries int `json:"queries"`
		Systems []struct {
			Name    string  `json:"name"`
			VsBM25  float64 `json:"vs_bm25"`
			Overall struct {
				At []struct {
					K      int     `json:"k"`
					Recall float64 `json:"recall"`
				} `json:"at"`
			} `json:"overall"`
		} `json:"systems"`
	}
	c.json(&rep, "eval", path, "--ablate", "-k", "1,10")
	if rep.Facts != 24 || rep.Queries != 24 || len(rep.Systems) != 5 {
		t.Fatalf("report = %+v", rep)
	}
	for _, s := range rep.Systems[:2] {
		if s.Overall.At[1].Recall < 0.9 {
			t.Errorf("%s recall@10 = %v on an easy set", s.Name, s.Overall.At[1].Recall)
		}
	}
	out := c.ok("eval", path, "--undated", "--weights", "fts=1,jaccard=0.5")
	if !strings.Contains(out, "hybrid") || !strings.Contains(out, "undated") {
		t.Errorf("text output:\n%s", out)
	}
	for _, args := range [][]string{{"eval"}, {"eval", path, "--locomo", path}, {"eval", path, "--weights", "x=1"}, {"eval", path, "--now", "yesterday"}} {
		if _, _, code := c.run("", args...); code != exitUsage {
			t.Errorf("%v: exit %d, want %d", args, code, exitUsage)
		}
	}
	bad := filepath.Join(t.TempDir(), "bad.jsonl")
	os.WriteFile(bad, []byte(`{"kind":"query","text":"q","gold":["x"]}`+"\n"), 0o600)
	if _, _, code := c.run("", "eval", bad); code != exitInvalid {
		t.Errorf("bad data: exit %d, want %d", code, exitInvalid)
	}
}

// TestCLI_EvalMorphology runs the committed ru/en inflection set: every
// query must find its fact first (docs/evaluation.md: hit@1).
func TestCLI_EvalMorphology(t *testing.T) {
	c := newCLI(t)
	var rep struct {
		Queries int `json:"queries"`
		Systems []struct {
			Name    string `json:"name"`
			Overall struct {
				At []struct {
					Hit float64 `json:"hit"`
				} `json:"at"`
			} `json:"overall"`
		} `json:"systems"`
	}
	c.json(&rep, "eval", filepath.Join("..", "..", "eval", "testdata", "morph.jsonl"), "-k", "1")
	if rep.Queries < 40 || len(rep.Systems) != 2 {
		t.Fatalf("report = %+v", rep)
	}
	if hit := rep.Systems[1].Overall.At[0].Hit; hit < 0.95 {
		t.Errorf("hybrid hit@1 = %.3f on the inflection set, want >= 0.95", hit)
	}
}

// beirDir writes a small BEIR-format tree: documents about towns with a
// title each, one query per document naming its town.
func beirDir(t *testing.T) string {
	t.Helper()
	dir := t.TempDir()
	var corpus, queries, qrels strings.Builder
	qrels.WriteString("query-id\tcorpus-id\tscore\n")
	for i := range 20 {
		town := fmt.Sprintf("Town%c", 'a'+i)
		fmt.Fprintf(&corpus, `{"_id":"d%d","title":"%s","text":"%s has a harbour and a weekly fish market."}`+"\n", i, town, town)
		fmt.Fprintf(&queries, `{"_id":"q%d","text":"fish market of %s"}`+"\n", i, town)
		fmt.Fprintf(&qrels, "q%d\td%d\t1\n", i, i)
	}
	os.MkdirAll(filepath.Join(dir, "qrels"), 0o755)
	for name, body := range map[string]string{"corpus.jsonl": corpus.String(), "queries.jsonl": queries.String(), "qrels/test.tsv": qrels.String()} {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(body), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	return dir
}

func TestCLI_EvalBEIR(t *testing.T) {
	c := newCLI(t)
	dir := beirDir(t)
	var rep struct {
		Facts    int      `json:"facts"`
		Queries  int      `json:"queries"`
		Ks       []int    `json:"ks"`
		Metric   string   `json:"metric"`
		MRRK     int      `json:"mrr_k"`
		Baseline []string `json:"baselines"`
		Systems  []struct {
			Name    string `json:"name"`
			Overall struct {
				At []struct {
					K    int     `json:"k"`
					NDCG float64 `json:"ndcg"`
				} `json:"at"`
			} `json:"overall"`
		} `json:"systems"`
		PerQuery []struct {
			ID      string `json:"id"`
			Systems []struct {
				System    string `json:"system"`
				FirstRank int    `json:"first_rank"`
			} `json:"systems"`
		} `json:"per_query"`
	}
	c.json(&rep, "eval", "--beir", dir, "--per-query")
	if rep.Facts != 20 || rep.Queries != 20 || rep.Metric != "ndcg" || rep.MRRK != 10 || len(rep.Ks) != 2 || rep.Ks[1] != 100 {
		t.Fatalf("report = %+v", rep)
	}
	if len(rep.Systems) != 3 || rep.Systems[0].Name != "bm25-lucene" || rep.Systems[2].Name != "hybrid" || len(rep.Baseline) != 2 {
		t.Fatalf("systems = %+v, baselines %v", rep.Systems, rep.Baseline)
	}
	if ndcg := rep.Systems[2].Overall.At[0].NDCG; ndcg < 0.99 {
		t.Errorf("hybrid nDCG@10 = %v on a set where every query names its document", ndcg)
	}
	if len(rep.PerQuery) != 20 || rep.PerQuery[0].Systems[2].FirstRank != 1 {
		t.Errorf("per query = %+v", rep.PerQuery)
	}
	out := c.ok("eval", "--beir", dir, "--per-query", "-k", "5,10")
	for _, want := range []string{"ndcg@10 vs bm25", "mrr@10", "bm25-lucene = Okapi BM25", "per query", "fish market of Towna"} {
		if !strings.Contains(out, want) {
			t.Errorf("text output lacks %q:\n%s", want, out)
		}
	}
	if _, _, code := c.run("", "eval", "--beir", dir, "--locomo", dir); code != exitUsage {
		t.Errorf("--beir with --locomo: exit %d, want %d", code, exitUsage)
	}
	os.Remove(filepath.Join(dir, "qrels", "test.tsv"))
	if _, _, code := c.run("", "eval", "--beir", dir); code == 0 {
		t.Error("--beir without qrels succeeded")
	}
}
