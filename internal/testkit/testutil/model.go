package testutil

import (
	"os"
	"path/filepath"
	"runtime"
	"testing"

	"github.com/holomem/holomem/embed"
	"github.com/holomem/holomem/spm"
)

// moduleRoot is the repository root, found from this file's path so
// fixtures load the same from any package's tests.
func moduleRoot() string {
	_, file, _, _ := runtime.Caller(0)
	return filepath.Join(filepath.Dir(file), "..", "..", "..")
}

// TinyModelConfig is a small XLM-R-style encoder whose vocabulary fits the
// committed SentencePiece fixture (spm/testdata/fixture.model, 8,000 pieces
// plus the fairseq specials).
func TinyModelConfig() embed.Config {
	return embed.Config{
		ModelType: "xlm-roberta", VocabSize: 8002, HiddenSize: 32, NumLayers: 2, NumHeads: 2,
		IntermediateSize: 64, MaxPositions: 130, TypeVocabSize: 1, LayerNormEps: 1e-5,
		PadTokenID: 1, HiddenAct: "gelu",
	}
}

// WriteTinyModel writes a complete small model directory into dir: random
// weights in the real format and the fixture tokenizer. Its vectors are
// deterministic but carry no meaning; tests use it to exercise the whole
// semantic path, not to judge relevance.
func WriteTinyModel(tb testing.TB, dir string) {
	tb.Helper()
	if err := embed.GenerateModel(dir, TinyModelConfig(), 1); err != nil {
		tb.Fatalf("generate model: %v", err)
	}
	b, err := os.ReadFile(filepath.Join(moduleRoot(), "spm", "testdata", "fixture.model"))
	if err != nil {
		tb.Fatalf("read tokenizer fixture: %v", err)
	}
	if err := os.WriteFile(filepath.Join(dir, "sentencepiece.bpe.model"), b, 0o644); err != nil {
		tb.Fatal(err)
	}
}

// MustTinyEmbedder opens a tiny generated model as an embedder (closed when
// the test ends).
func MustTinyEmbedder(tb testing.TB) *embed.Embedder {
	tb.Helper()
	dir := tb.TempDir()
	WriteTinyModel(tb, dir)
	e, err := embed.Open(dir, &embed.Options{
		Name: "tiny", Threads: 1,
		LoadTokenizer: func(dir string) (embed.Tokenizer, error) { return spm.Load(dir) },
	})
	if err != nil {
		tb.Fatalf("open tiny model: %v", err)
	}
	tb.Cleanup(func() { e.Close() })
	return e
}
