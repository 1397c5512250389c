package embed_test

import (
	"context"
	"fmt"
	"os"

	"github.com/holomem/holomem/embed"
)

// Open a model directory and embed texts; the weights load on the first
// call and unload after five idle minutes.
func ExampleOpen() {
	dir, _ := os.MkdirTemp("", "embed-example-")
	defer os.RemoveAll(dir)
	cfg := embed.Config{
		ModelType: "xlm-roberta", VocabSize: 100, HiddenSize: 16, NumLayers: 1, NumHeads: 2,
		IntermediateSize: 32, MaxPositions: 34, TypeVocabSize: 1, LayerNormEps: 1e-5,
		PadTokenID: 1, HiddenAct: "gelu",
	}
	if err := embed.GenerateModel(dir, cfg, 1); err != nil {
		fmt.Println(err)
		return
	}
	e, err := embed.Open(dir, &embed.Options{Name: "example", Revision: "v1", IdleTimeout: 5 * 60e9})
	if err != nil {
		fmt.Println(err)
		return
	}
	defer e.Close()
	// Without a tokenizer in dir, embed token ids (<s> ... </s>) directly.
	vs, err := e.EmbedTokens(context.Background(), [][]int32{{0, 17, 42, 2}})
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println(e.ModelID(), e.Dim(), len(vs[0]))
	// Output: example@v1#mean 16 16
}
