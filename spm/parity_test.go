package spm_test

import (
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"

	"github.com/holomem/holomem/spm"
)

// The fixtures in testdata come from scripts/spm-fixture/gen.sh: models
// trained by Debian's spm_train 0.1.97 and the ids its spm_encode prints.

// readLines returns the newline-separated lines of a testdata file.
func readLines(tb testing.TB, name string) []string {
	tb.Helper()
	data, err := os.ReadFile(filepath.Join("testdata", name))
	if err != nil {
		tb.Fatal(err)
	}
	return strings.Split(strings.TrimSuffix(string(data), "\n"), "\n")
}

// readIDs parses one line of space-separated ids per sentence.
func readIDs(tb testing.TB, name string) [][]int {
	tb.Helper()
	var out [][]int
	for i, line := range readLines(tb, name) {
		ids := []int{}
		for _, f := range strings.Fields(line) {
			id, err := strconv.Atoi(f)
			if err != nil {
				tb.Fatalf("%s:%d: %v", name, i+1, err)
			}
			ids = append(ids, id)
		}
		out = append(out, ids)
	}
	return out
}

var (
	fixtureOnce sync.Once
	fixtureSPM  *spm.Tokenizer
	fixtureJSON *spm.Tokenizer
	fixtureErr  error
)

// fixtures returns the main fixture model loaded from the .model file and
// from its tokenizer.json conversion.
func fixtures(tb testing.TB) (fromModel, fromJSON *spm.Tokenizer) {
	tb.Helper()
	fixtureOnce.Do(func() {
		data, err := os.ReadFile("testdata/fixture.model")
		if err != nil {
			fixtureErr = err
			return
		}
		if fixtureSPM, fixtureErr = spm.FromModelProto(data); fixtureErr != nil {
			return
		}
		js, err := spm.ConvertToTokenizerJSON(data)
		if err != nil {
			fixtureErr = err
			return
		}
		fixtureJSON, fixtureErr = spm.FromTokenizerJSON(js)
	})
	if fixtureErr != nil {
		tb.Fatal(fixtureErr)
	}
	return fixtureSPM, fixtureJSON
}

// toFairseq frames SentencePiece ids of an XLM-R layout model as model ids:
// <s>, fairseq ids (<unk> 0 -> 3, others +1), </s>.
func toFairseq(ids []int) []int32 {
	out := []int32{0}
	for _, id := range ids {
		if id == 0 {
			out = append(out, 3)
		} else {
			out = append(out, int32(id+1))
		}
	}
	return append(out, 2)
}

// checkParity compares a tokenizer against spm_encode on every sentence
// and returns how many matched.
func checkParity(t *testing.T, tok *spm.Tokenizer, sentences []string, want [][]int, json bool) int {
	t.Helper()
	if len(want) > len(sentences) {
		t.Fatalf("%d id lines for %d sentences", len(want), len(sentences))
	}
	ok, shown := 0, 0
	for i, w := range want {
		s := sentences[i]
		var good bool
		var got any
		if json {
			g, err := tok.EncodeForModel(s, 0)
			if err != nil {
				t.Fatal(err)
			}
			got, good = g, slices.Equal(g, toFairseq(w))
		} else {
			g := tok.Encode(s)
			got, good = g, slices.Equal(g, w)
		}
		if good {
			ok++
		} else if shown++; shown <= 10 {
			t.Errorf("sentence %d %q:\n got %v\nwant %v", i+1, s, got, w)
		}
	}
	if ok != len(want) {
		t.Errorf("%d/%d sentences differ from spm_encode", len(want)-ok, len(want))
	}
	return ok
}

func TestParity_ModelProto(t *testing.T) {
	tok, _ := fixtures(t)
	sentences := readLines(t, "sentences.txt")
	want := readIDs(t, "expected_ids.txt")
	ok := checkParity(t, tok, sentences, want, false)
	t.Logf("fixture.model: %d/%d sentences match spm_encode", ok, len(want))

	random := readLines(t, "random.txt")
	wantRandom := readIDs(t, "random_ids.txt")
	ok = checkParity(t, tok, random, wantRandom, false)
	t.Logf("fixture.model, random code points: %d/%d match", ok, len(wantRandom))

	bad := readLines(t, "sentences_bad.txt")
	wantBad := readIDs(t, "fixture_bad_ids.txt")
	ok = checkParity(t, tok, bad, wantBad, false)
	t.Logf("fixture.model, invalid UTF-8 and control bytes: %d/%d match", ok, len(wantBad))
}

func TestParity_TokenizerJSON(t *testing.T) {
	fromModel, fromJSON := fixtures(t)
	if got, want := fromJSON.VocabSize(), fromModel.VocabSize(); got != want {
		t.Fatalf("VocabSize: json %d, model %d", got, want)
	}
	for _, c := range []struct{ sentences, ids string }{
		{"sentences.txt", "expected_ids.txt"},
		{"sentences_bad.txt", "fixture_bad_ids.txt"},
		{"random.txt", "random_ids.txt"},
	} {
		sentences := readLines(t, c.sentences)
		want := readIDs(t, c.ids)
		ok := checkParity(t, fromJSON, sentences, want, true)
		t.Logf("tokenizer.json conversion, %s: %d/%d sentences match spm_encode", c.sentences, ok, len(want))
		same := 0
		for _, s := range sentences {
			a, _ := fromModel.EncodeForModel(s, 128)
			b, _ := fromJSON.EncodeForModel(s, 128)
			if slices.Equal(a, b) {
				same++
			}
		}
		if same != len(sentences) {
			t.Errorf("%s: model ids agree between loaders on %d/%d sentences", c.sentences, same, len(sentences))
		}
	}
}

// TestParity_CustomRules uses a model with a hand-written normalisation
// table (overlapping multi-character keys, a deleting rule), user-defined
// symbols, byte fallback and whitespace kept as is.
func TestParity_CustomRules(t *testing.T) {
	data, err := os.ReadFile("testdata/custom.model")
	if err != nil {
		t.Fatal(err)
	}
	tok, err := spm.FromModelProto(data)
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct{ sentences, ids string }{
		{"sentences.txt", "custom_ids.txt"},
		{"random.txt", "custom_random_ids.txt"},
		{"sentences_bad.txt", "custom_bad_ids.txt"},
	} {
		want := readIDs(t, c.ids)
		ok := checkParity(t, tok, readLines(t, c.sentences), want, false)
		t.Logf("custom.model, %s: %d/%d match", c.sentences, ok, len(want))
	}
}
