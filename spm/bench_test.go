package spm_test

import (
	"os"
	"strings"
	"sync"
	"testing"

	"github.com/holomem/holomem/spm"
)

// Global sinks keep the compiler from dropping benchmarked calls.
var (
	sinkIDs   []int
	sinkIDs32 []int32
	sinkTok   *spm.Tokenizer
)

// thousandWords is a deterministic 1,000-word multilingual text.
func thousandWords(tb testing.TB) string {
	tb.Helper()
	var words []string
	for _, line := range readLines(tb, "sentences.txt")[40:] {
		words = append(words, strings.Fields(line)...)
		if len(words) >= 1000 {
			break
		}
	}
	return strings.Join(words[:1000], " ")
}

func BenchmarkEncode_Short(b *testing.B) {
	tok, _ := fixtures(b)
	const s = "Remember that the user prefers dark mode."
	b.ReportAllocs()
	b.SetBytes(int64(len(s)))
	for b.Loop() {
		sinkIDs = tok.Encode(s)
	}
}

func BenchmarkEncode_1000Words(b *testing.B) {
	tok, _ := fixtures(b)
	s := thousandWords(b)
	b.ReportAllocs()
	b.SetBytes(int64(len(s)))
	for b.Loop() {
		sinkIDs = tok.Encode(s)
	}
}

func BenchmarkEncodeForModel_Short(b *testing.B) {
	tok, _ := fixtures(b)
	const s = "Remember that the user prefers dark mode."
	b.ReportAllocs()
	for b.Loop() {
		sinkIDs32, _ = tok.EncodeForModel(s, 128)
	}
}

var (
	synthOnce  sync.Once
	synthModel []byte
	synthJSON  []byte
)

// synth250k returns a synthetic 250,000-piece model (the size of XLM-R's)
// and its tokenizer.json conversion.
func synth250k(b *testing.B) (model, js []byte) {
	b.Helper()
	synthOnce.Do(func() {
		fixture, err := os.ReadFile("testdata/fixture.model")
		if err != nil {
			b.Fatal(err)
		}
		charsmap, err := spm.Charsmap(fixture)
		if err != nil {
			b.Fatal(err)
		}
		synthModel = spm.SynthModel(250000, charsmap)
		if synthJSON, err = spm.ConvertToTokenizerJSON(synthModel); err != nil {
			b.Fatal(err)
		}
	})
	return synthModel, synthJSON
}

func BenchmarkFromModelProto_250k(b *testing.B) {
	model, _ := synth250k(b)
	b.ReportAllocs()
	b.SetBytes(int64(len(model)))
	for b.Loop() {
		var err error
		if sinkTok, err = spm.FromModelProto(model); err != nil {
			b.Fatal(err)
		}
	}
}

func BenchmarkFromTokenizerJSON_250k(b *testing.B) {
	_, js := synth250k(b)
	b.ReportAllocs()
	b.SetBytes(int64(len(js)))
	for b.Loop() {
		var err error
		if sinkTok, err = spm.FromTokenizerJSON(js); err != nil {
			b.Fatal(err)
		}
	}
}

func BenchmarkEncode_1000Words_250k(b *testing.B) {
	model, _ := synth250k(b)
	tok, err := spm.FromModelProto(model)
	if err != nil {
		b.Fatal(err)
	}
	s := thousandWords(b)
	b.ReportAllocs()
	b.SetBytes(int64(len(s)))
	for b.Loop() {
		sinkIDs = tok.Encode(s)
	}
}
