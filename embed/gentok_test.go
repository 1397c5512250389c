package embed_test

import (
	"testing"

	"github.com/holomem/holomem/embed"
)

func TestGenerateTokenizer(t *testing.T) {
	dir := t.TempDir()
	cfg := embed.Config{
		ModelType: "xlm-roberta", VocabSize: 1000, HiddenSize: 16, NumLayers: 1, NumHeads: 2,
		IntermediateSize: 32, MaxPositions: 66, TypeVocabSize: 1, LayerNormEps: 1e-5,
		PadTokenID: 1, HiddenAct: "gelu",
	}
	if err := embed.GenerateModel(dir, cfg, 1); err != nil {
		t.Fatal(err)
	}
	if err := embed.GenerateTokenizer(dir, cfg.VocabSize); err != nil {
		t.Fatal(err)
	}
	e, err := embed.Open(dir, &embed.Options{Threads: 1})
	if err != nil {
		t.Fatal(err)
	}
	defer e.Close()
	vs, err := e.Embed(t.Context(), []string{"The quick brown fox jumps over the lazy dog.", "Компактный формат, short words"})
	if err != nil {
		t.Fatal(err)
	}
	if len(vs) != 2 || len(vs[0]) != 16 {
		t.Fatalf("got %d vectors", len(vs))
	}
	if err := embed.GenerateTokenizer(dir, 3); err == nil {
		t.Fatal("GenerateTokenizer with 3 ids: no error")
	}
}
