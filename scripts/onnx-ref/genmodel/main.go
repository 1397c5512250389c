// Command genmodel writes the small random models that embed's parity tests
// use, with the token-id batches the ONNX reference is computed on:
//
//	go run ./scripts/onnx-ref/genmodel -out embed/testdata
//
// It writes <out>/tiny (XLM-R style: positions from padding_idx+1, mean
// pooling, exact GELU) and <out>/tiny-bert (BERT style: positions from 0,
// CLS pooling, tanh GELU, sizes that are not multiples of 8), each with
// config.json, model.safetensors and inputs.json. See README.md.
package main

import (
	"encoding/json"
	"flag"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"

	"github.com/holomem/holomem/embed"
)

type spec struct {
	name       string
	cfg        embed.Config
	bos, eos   int32
	firstPiece int32
}

func main() {
	out := flag.String("out", "embed/testdata", "directory to write the models into")
	flag.Parse()
	specs := []spec{
		{"tiny", embed.Config{
			ModelType: "xlm-roberta", VocabSize: 1000, HiddenSize: 64, NumLayers: 3, NumHeads: 4,
			IntermediateSize: 128, MaxPositions: 66, TypeVocabSize: 1, LayerNormEps: 1e-5,
			PadTokenID: 1, HiddenAct: "gelu", Pooling: embed.PoolingMean, MaxSeqLength: 64,
		}, 0, 2, 3},
		{"tiny-bert", embed.Config{
			ModelType: "bert", VocabSize: 500, HiddenSize: 48, NumLayers: 2, NumHeads: 4,
			IntermediateSize: 100, MaxPositions: 40, TypeVocabSize: 2, LayerNormEps: 1e-12,
			PadTokenID: 0, HiddenAct: "gelu_new", Pooling: embed.PoolingCLS,
		}, 101, 102, 103},
	}
	for i, s := range specs {
		dir := filepath.Join(*out, s.name)
		if err := embed.GenerateModel(dir, s.cfg, uint64(i+1)); err != nil {
			fmt.Fprintln(os.Stderr, err)
			os.Exit(1)
		}
		if err := writeInputs(dir, s, uint64(i+100)); err != nil {
			fmt.Fprintln(os.Stderr, err)
			os.Exit(1)
		}
	}
}

// writeInputs writes inputs.json: batches of token-id sequences with
// special tokens, of mixed lengths so that batches need padding.
func writeInputs(dir string, s spec, seed uint64) error {
	rng := rand.New(rand.NewPCG(seed, 7))
	maxLen := s.cfg.MaxPositions - 2
	if s.cfg.ModelType == "bert" {
		maxLen = s.cfg.MaxPositions
	}
	seq := func(n int) []int32 {
		ids := []int32{s.bos}
		for range n - 2 {
			ids = append(ids, s.firstPiece+rng.Int32N(int32(s.cfg.VocabSize)-s.firstPiece))
		}
		return append(ids, s.eos)
	}
	batches := [][][]int32{
		{seq(10)},
		{seq(2)},
		{seq(3), seq(7), seq(16)},
		{seq(maxLen), seq(5)},
		{seq(33), seq(12), seq(2), seq(25)},
		{seq(60 % maxLen)},
	}
	b, err := json.Marshal(map[string]any{"batches": batches})
	if err != nil {
		return err
	}
	return os.WriteFile(filepath.Join(dir, "inputs.json"), append(b, '\n'), 0o644)
}
