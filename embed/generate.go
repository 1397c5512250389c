package embed

import (
	"bufio"
	"encoding/binary"
	"encoding/json"
	"fmt"
	"math"
	"math/rand/v2"
	"os"
	"path/filepath"
	"slices"
	"strconv"

	"github.com/holomem/holomem/errs"
)

// genTensor is one tensor the generator writes and how to fill it.
type genTensor struct {
	name  string
	shape []int
	// mean and std of the normal distribution the values are drawn from.
	mean, std float64
}

// GenerateModel writes a model with random weights in the Hugging Face
// format into dir: config.json, model.safetensors (F32) and, for non-default
// settings, 1_Pooling/config.json and sentence_bert_config.json. cfg must
// pass [Config.Validate]; the same cfg and seed always give the same files.
// Weights are scaled so that activations stay of order one, which makes the
// model numerically representative of a trained one but its vectors
// meaningless. The word-embedding table is streamed, so real shapes
// (250002 x 384, 384 MB) need little memory. No tokenizer is written.
func GenerateModel(dir string, cfg Config, seed uint64) error {
	return generateModel(dir, cfg, seed, "F32")
}

func generateModel(dir string, cfg Config, seed uint64, dtype string) error {
	if cfg.Pooling == "" {
		cfg.Pooling = PoolingMean
	}
	if err := cfg.Validate(); err != nil {
		return fmt.Errorf("generate model: %w", err)
	}
	if elemSize(dtype) == 0 {
		return fmt.Errorf("generate model: %w: dtype %q", errs.ErrInvalid, dtype)
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return fmt.Errorf("generate model: %w", err)
	}
	if err := writeConfigFiles(dir, cfg); err != nil {
		return fmt.Errorf("generate model: %w", err)
	}
	if err := writeSafetensors(filepath.Join(dir, "model.safetensors"), genTensors(cfg), seed, dtype); err != nil {
		return fmt.Errorf("generate model: %w", err)
	}
	return nil
}

func genTensors(cfg Config) []genTensor {
	H, I := cfg.HiddenSize, cfg.IntermediateSize
	ts := []genTensor{
		{"embeddings.word_embeddings.weight", []int{cfg.VocabSize, H}, 0, 0.5},
		{"embeddings.position_embeddings.weight", []int{cfg.MaxPositions, H}, 0, 0.2},
		{"embeddings.token_type_embeddings.weight", []int{cfg.TypeVocabSize, H}, 0, 0.2},
		{"embeddings.LayerNorm.weight", []int{H}, 1, 0.1},
		{"embeddings.LayerNorm.bias", []int{H}, 0, 0.1},
	}
	lin := func(p string, out, in int) {
		ts = append(ts,
			genTensor{p + ".weight", []int{out, in}, 0, 1 / math.Sqrt(float64(in))},
			genTensor{p + ".bias", []int{out}, 0, 0.1})
	}
	ln := func(p string) {
		ts = append(ts,
			genTensor{p + ".weight", []int{H}, 1, 0.1},
			genTensor{p + ".bias", []int{H}, 0, 0.1})
	}
	for i := range cfg.NumLayers {
		p := "encoder.layer." + strconv.Itoa(i) + "."
		lin(p+"attention.self.query", H, H)
		lin(p+"attention.self.key", H, H)
		lin(p+"attention.self.value", H, H)
		lin(p+"attention.output.dense", H, H)
		ln(p + "attention.output.LayerNorm")
		lin(p+"intermediate.dense", I, H)
		lin(p+"output.dense", H, I)
		ln(p + "output.LayerNorm")
	}
	// Hugging Face writes tensors sorted by name; the values are drawn in
	// that order too, so the data does not depend on the list above.
	slices.SortFunc(ts, func(a, b genTensor) int {
		switch {
		case a.name < b.name:
			return -1
		case a.name > b.name:
			return 1
		}
		return 0
	})
	return ts
}

// writeSafetensors streams the tensors to path with random values.
func writeSafetensors(path string, ts []genTensor, seed uint64, dtype string) (err error) {
	es := elemSize(dtype)
	hdr := map[string]any{"__metadata__": map[string]string{"format": "pt"}}
	var off uint64
	for _, t := range ts {
		n := uint64(1)
		for _, d := range t.shape {
			n *= uint64(d)
		}
		hdr[t.name] = map[string]any{"dtype": dtype, "shape": t.shape, "data_offsets": []uint64{off, off + n*uint64(es)}}
		off += n * uint64(es)
	}
	hb, err := json.Marshal(hdr)
	if err != nil {
		return err
	}
	// Pad the header with spaces so the data starts 8-byte aligned, as the
	// Hugging Face writer does; aligned F32 tensors can then be mapped.
	for len(hb)%8 != 0 {
		hb = append(hb, ' ')
	}
	f, err := os.Create(path)
	if err != nil {
		return err
	}
	defer func() {
		if cerr := f.Close(); err == nil {
			err = cerr
		}
	}()
	w := bufio.NewWriterSize(f, 1<<20)
	var lb [8]byte
	binary.LittleEndian.PutUint64(lb[:], uint64(len(hb)))
	w.Write(lb[:])
	w.Write(hb)
	rng := rand.New(rand.NewPCG(seed, seed^0x9e3779b97f4a7c15))
	var b [4]byte
	for _, t := range ts {
		n := 1
		for _, d := range t.shape {
			n *= d
		}
		for range n {
			v := float32(t.mean + t.std*rng.NormFloat64())
			switch dtype {
			case "F32":
				binary.LittleEndian.PutUint32(b[:], math.Float32bits(v))
			case "F16":
				binary.LittleEndian.PutUint16(b[:], f32ToF16(v))
			case "BF16":
				binary.LittleEndian.PutUint16(b[:], uint16(math.Float32bits(v)>>16))
			}
			if _, err := w.Write(b[:es]); err != nil {
				return err
			}
		}
	}
	return w.Flush()
}

// writeConfigFiles writes config.json and the sentence-transformers files.
func writeConfigFiles(dir string, cfg Config) error {
	arch := "BertModel"
	if cfg.isRoBERTa() {
		arch = "XLMRobertaModel"
		if cfg.ModelType == "roberta" {
			arch = "RobertaModel"
		}
	}
	hf := map[string]any{
		"architectures":           []string{arch},
		"model_type":              cfg.ModelType,
		"vocab_size":              cfg.VocabSize,
		"hidden_size":             cfg.HiddenSize,
		"num_hidden_layers":       cfg.NumLayers,
		"num_attention_heads":     cfg.NumHeads,
		"intermediate_size":       cfg.IntermediateSize,
		"max_position_embeddings": cfg.MaxPositions,
		"type_vocab_size":         cfg.TypeVocabSize,
		"layer_norm_eps":          cfg.LayerNormEps,
		"pad_token_id":            cfg.PadTokenID,
		"hidden_act":              cfg.HiddenAct,
		"position_embedding_type": "absolute",
	}
	if err := writeJSON(filepath.Join(dir, "config.json"), hf); err != nil {
		return err
	}
	pool := map[string]any{
		"word_embedding_dimension": cfg.HiddenSize,
		"pooling_mode_cls_token":   cfg.Pooling == PoolingCLS,
		"pooling_mode_mean_tokens": cfg.Pooling == PoolingMean,
	}
	if err := os.MkdirAll(filepath.Join(dir, "1_Pooling"), 0o755); err != nil {
		return err
	}
	if err := writeJSON(filepath.Join(dir, "1_Pooling", "config.json"), pool); err != nil {
		return err
	}
	if cfg.MaxSeqLength > 0 {
		sb := map[string]any{"max_seq_length": cfg.MaxSeqLength, "do_lower_case": false}
		if err := writeJSON(filepath.Join(dir, "sentence_bert_config.json"), sb); err != nil {
			return err
		}
	}
	return nil
}

func writeJSON(path string, v any) error {
	b, err := json.MarshalIndent(v, "", "  ")
	if err != nil {
		return err
	}
	return os.WriteFile(path, append(b, '\n'), 0o644)
}
