package spm

import (
	"math"
	"math/rand/v2"
	"os"
	"slices"
	"strconv"
	"strings"
	"testing"
)

// naivePrefixes lists the keys that are prefixes of s, shortest first.
func naivePrefixes(keys []string, vals []int32, s string) [][2]int {
	var out [][2]int
	for i, k := range keys {
		if strings.HasPrefix(s, k) {
			out = append(out, [2]int{len(k), int(vals[i])})
		}
	}
	slices.SortFunc(out, func(a, b [2]int) int { return a[0] - b[0] })
	return out
}

func randomKeys(rng *rand.Rand, n int) []string {
	alphabet := []string{"a", "b", "\x00", "\xff", "▁", "я", "的", "ab", "aaaaaaaa"}
	seen := map[string]bool{}
	var keys []string
	for len(keys) < n {
		var sb strings.Builder
		for range 1 + rng.IntN(12) {
			sb.WriteString(alphabet[rng.IntN(len(alphabet))])
		}
		if k := sb.String(); !seen[k] {
			seen[k] = true
			keys = append(keys, k)
		}
	}
	return keys
}

func TestTrie_prefixes(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	for _, n := range []int{1, 2, 10, 300, 3000} {
		keys := randomKeys(rng, n)
		// Only every third key goes in; a key's value is its index.
		include := func(i int) bool { return i%3 != 1 }
		var inKeys []string
		var vals []int32
		for i, k := range keys {
			if include(i) {
				inKeys = append(inKeys, k)
				vals = append(vals, int32(i))
			}
		}
		tr, err := buildTrie(keys, include)
		if err != nil {
			t.Fatal(err)
		}
		probes := append(slices.Clone(keys[:min(n, 200)]), "", "a", "zzz", "aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa")
		for range 200 {
			probes = append(probes, keys[rng.IntN(n)]+keys[rng.IntN(n)])
		}
		for _, s := range probes {
			var got [][2]int
			tr.prefixes(s, func(l int, v int32) { got = append(got, [2]int{l, int(v)}) })
			if want := naivePrefixes(inKeys, vals, s); !slices.Equal(got, want) {
				t.Fatalf("n=%d prefixes(%q) = %v, want %v", n, s, got, want)
			}
		}
	}
}

func TestTrie_errors(t *testing.T) {
	for _, keys := range [][]string{{"a", ""}, {"abc", "b", "abc"}, {"same-long-key-1", "same-long-key-1"}} {
		if _, err := buildTrie(keys, nil); err == nil {
			t.Errorf("buildTrie(%q) accepted", keys)
		}
	}
	tr, err := buildTrie(nil, nil)
	if err != nil {
		t.Fatal(err)
	}
	if got := tr.longest("abc"); got != 0 {
		t.Fatalf("empty trie matched %d bytes", got)
	}
}

func TestSortKeys(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 4))
	keys := randomKeys(rng, 5000)
	order, _ := sortKeys(keys, nil)
	if !slices.IsSortedFunc(order, func(a, b int32) int { return strings.Compare(keys[a], keys[b]) }) {
		t.Fatal("sortKeys did not sort")
	}
}

func TestParseModelProto_synth(t *testing.T) {
	data := SynthModel(1000, []byte("\x08\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00"))
	m, err := parseModelProto(string(data))
	if err != nil {
		t.Fatal(err)
	}
	if got, want := m.pieces.len(), 1000; got != want {
		t.Fatalf("pieces = %d, want %d", got, want)
	}
	if e := m.pieces.entry; e[0].typ != typeUnknown || e[1].typ != typeControl || e[5].typ != typeNormal {
		t.Fatalf("types %d %d %d", e[0].typ, e[1].typ, e[5].typ)
	}
	if m.padID != -1 || m.bosID != 1 || m.eosID != 2 || m.unkID != 0 || m.modelType != modelTypeUnigram {
		t.Fatalf("trainer spec %+v", m)
	}
	if m.normName != "nmt_nfkc" || !m.addDummyPrefix || !m.removeExtraWS || !m.escapeWS {
		t.Fatalf("normalizer spec %+v", m)
	}
}

// TestNormalize checks nmt_nfkc through the fixture's charsmap against
// what spm_normalize prints for the same model.
func TestNormalize(t *testing.T) {
	data, err := os.ReadFile("testdata/fixture.model")
	if err != nil {
		t.Fatal(err)
	}
	tok, err := FromModelProto(data)
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct{ in, want string }{
		{"", ""},
		{"   ", ""},
		{"Hello  world ", "▁Hello▁world"},
		{"\tTab\u00a0nbsp\u3000ideo", "▁Tab▁nbsp▁ideo"},
		{"ﬁle Ⅻ ①", "▁file▁XII▁1"},
		{"ＡＢＣ１２３", "▁ABC123"},
		{"e\u0301", "▁é"},
		{"\xff", "▁\uFFFD"},
		{"a\x00b\x01c", "▁a\x00bc"}, // spm_normalize keeps NUL, drops U+0001
		{"\u200b", ""},
	} {
		if got := string(tok.norm.normalize(nil, c.in)); got != c.want {
			t.Errorf("normalize(%q) = %q, want %q", c.in, got, c.want)
		}
	}
}

// TestQuickScore compares the score fast path with strconv on float32
// values printed the way tokenizer.json prints them, and on odd decimals.
func TestQuickScore(t *testing.T) {
	rng := rand.New(rand.NewPCG(5, 6))
	check := func(s string) {
		t.Helper()
		want, err := strconv.ParseFloat(s, 64)
		if got, ok := quickScore(s); ok && (err != nil || got != float32(want)) {
			t.Fatalf("quickScore(%q) = %v, want %v (%v)", s, got, float32(want), err)
		}
	}
	for range 50000 {
		f := float32(-rng.Float64() * 20)
		if rng.IntN(10) == 0 {
			f = math.Float32frombits(rng.Uint32())
		}
		check(strconv.FormatFloat(float64(f), 'g', -1, 64))
		check(strconv.FormatFloat(float64(f), 'f', -1, 64))
	}
	for _, s := range []string{"0", "-0", "0.0", "-5.5", "12", "-", "", ".", "1.", ".5", "--1", "1e5", "0.000000000000000000001", "-99999999999999999999"} {
		check(s)
	}
}
