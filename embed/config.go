package embed

import (
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"path/filepath"
	"strings"

	"github.com/holomem/holomem/internal/leaf/safefile"

	"github.com/holomem/holomem/errs"
)

// Pooling names how token vectors are combined into one sentence vector.
type Pooling string

// Supported pooling modes.
const (
	// PoolingMean averages the vectors of the non-padding tokens (the
	// sentence-transformers default).
	PoolingMean Pooling = "mean"
	// PoolingCLS takes the vector of the first token (<s> or [CLS]).
	PoolingCLS Pooling = "cls"
)

// Config describes an encoder: the fields of a Hugging Face config.json that
// the forward pass needs, plus the sentence-transformers pooling and maximum
// sequence length. When adding fields here, consider GenerateModel and
// writeConfigJSON, which must write them back.
type Config struct {
	// ModelType is "bert", "xlm-roberta" or "roberta"; RoBERTa types number
	// positions from PadTokenID+1, BERT from 0.
	ModelType string
	// VocabSize is the number of rows of the word-embedding table.
	VocabSize int
	// HiddenSize is the width of every token vector and of the output.
	HiddenSize int
	// NumLayers is the number of encoder layers.
	NumLayers int
	// NumHeads is the number of attention heads; it divides HiddenSize.
	NumHeads int
	// IntermediateSize is the width of the feed-forward block.
	IntermediateSize int
	// MaxPositions is max_position_embeddings, the rows of the position table.
	MaxPositions int
	// TypeVocabSize is the rows of the token-type table (only row 0 is
	// used); zero in config.json means 2.
	TypeVocabSize int
	// LayerNormEps is the LayerNorm epsilon; zero in config.json means 1e-12.
	LayerNormEps float64
	// PadTokenID is the padding id; it sets the RoBERTa position offset.
	// Absent from config.json it is 1 for RoBERTa types and 0 for BERT.
	PadTokenID int
	// HiddenAct is "gelu" (exact, erf) or "gelu_new" (tanh approximation).
	HiddenAct string
	// Pooling defaults to PoolingMean.
	Pooling Pooling
	// MaxSeqLength is the number of tokens, special tokens included, that a
	// text is truncated to. Zero means the model default: 512 for BERT,
	// MaxPositions-2 for RoBERTa/XLM-R, and never more than the position
	// table allows.
	MaxSeqLength int
}

// hfConfig is config.json as Hugging Face writes it.
type hfConfig struct {
	ModelType        string   `json:"model_type"`
	Architectures    []string `json:"architectures,omitempty"`
	VocabSize        int      `json:"vocab_size"`
	HiddenSize       int      `json:"hidden_size"`
	NumLayers        int      `json:"num_hidden_layers"`
	NumHeads         int      `json:"num_attention_heads"`
	IntermediateSize int      `json:"intermediate_size"`
	MaxPositions     int      `json:"max_position_embeddings"`
	TypeVocabSize    int      `json:"type_vocab_size"`
	LayerNormEps     float64  `json:"layer_norm_eps"`
	PadTokenID       *int     `json:"pad_token_id,omitempty"`
	HiddenAct        string   `json:"hidden_act"`
	PositionType     string   `json:"position_embedding_type,omitempty"`
}

// positionOffset is the position id of the first token: RoBERTa-style models
// number positions from padding_idx+1, BERT from 0.
func (c Config) positionOffset() int {
	if c.isRoBERTa() {
		return c.PadTokenID + 1
	}
	return 0
}

func (c Config) isRoBERTa() bool {
	return c.ModelType == "xlm-roberta" || c.ModelType == "roberta"
}

// maxTokens is the effective truncation length.
func (c Config) maxTokens() int {
	limit := c.MaxPositions - c.positionOffset()
	n := c.MaxSeqLength
	if n <= 0 {
		n = 512
	}
	return max(1, min(n, limit))
}

// Validate reports a wrapped errs.ErrInvalid when the configuration cannot
// describe a model this package runs.
func (c Config) Validate() error {
	switch c.ModelType {
	case "bert", "xlm-roberta", "roberta":
	default:
		return fmt.Errorf("%w: unsupported model_type %q (want bert, roberta or xlm-roberta)", errs.ErrInvalid, c.ModelType)
	}
	switch c.HiddenAct {
	case "gelu", "gelu_new":
	default:
		return fmt.Errorf("%w: unsupported hidden_act %q (want gelu or gelu_new)", errs.ErrInvalid, c.HiddenAct)
	}
	switch c.Pooling {
	case PoolingMean, PoolingCLS:
	default:
		return fmt.Errorf("%w: unsupported pooling %q (want mean or cls)", errs.ErrInvalid, c.Pooling)
	}
	const maxDim = 1 << 20
	for _, f := range []struct {
		name string
		v    int
	}{
		{"vocab_size", c.VocabSize}, {"hidden_size", c.HiddenSize},
		{"num_hidden_layers", c.NumLayers}, {"num_attention_heads", c.NumHeads},
		{"intermediate_size", c.IntermediateSize}, {"max_position_embeddings", c.MaxPositions},
		{"type_vocab_size", c.TypeVocabSize},
	} {
		if f.v <= 0 || f.v > maxDim*4 {
			return fmt.Errorf("%w: %s = %d out of range", errs.ErrInvalid, f.name, f.v)
		}
	}
	if c.HiddenSize%c.NumHeads != 0 {
		return fmt.Errorf("%w: hidden_size %d not divisible by num_attention_heads %d", errs.ErrInvalid, c.HiddenSize, c.NumHeads)
	}
	if c.NumLayers > 256 || c.HiddenSize > 16384 || c.IntermediateSize > 65536 {
		return fmt.Errorf("%w: model too large", errs.ErrInvalid)
	}
	if !(c.LayerNormEps > 0 && c.LayerNormEps < 1) {
		return fmt.Errorf("%w: layer_norm_eps %g out of range", errs.ErrInvalid, c.LayerNormEps)
	}
	if c.PadTokenID < 0 || c.PadTokenID >= c.VocabSize {
		return fmt.Errorf("%w: pad_token_id %d outside vocabulary", errs.ErrInvalid, c.PadTokenID)
	}
	if c.MaxPositions-c.positionOffset() < 2 {
		return fmt.Errorf("%w: max_position_embeddings %d too small", errs.ErrInvalid, c.MaxPositions)
	}
	if c.MaxSeqLength < 0 {
		return fmt.Errorf("%w: max_seq_length %d negative", errs.ErrInvalid, c.MaxSeqLength)
	}
	return nil
}

// ReadConfig reads dir/config.json and, when present,
// dir/1_Pooling/config.json and dir/sentence_bert_config.json, and validates
// the result. Unsupported architectures give a wrapped errs.ErrInvalid.
// MaxConfigBytes bounds a model's JSON configuration files, and
// MaxWeightsBytes its model.safetensors: model files are read only when
// they are regular files within these sizes (see package safefile).
const (
	MaxConfigBytes  = 1 << 20
	MaxWeightsBytes = 16 << 30
)

func ReadConfig(dir string) (Config, error) {
	data, err := safefile.ReadFile(filepath.Join(dir, "config.json"), MaxConfigBytes)
	if err != nil {
		return Config{}, fmt.Errorf("read config: %w", err)
	}
	c, err := parseConfig(data)
	if err != nil {
		return Config{}, fmt.Errorf("read config: %w", err)
	}
	if data, err := safefile.ReadFile(filepath.Join(dir, "1_Pooling", "config.json"), MaxConfigBytes); err == nil {
		p, err := parsePooling(data)
		if err != nil {
			return Config{}, fmt.Errorf("read pooling config: %w", err)
		}
		c.Pooling = p
	} else if !errors.Is(err, fs.ErrNotExist) {
		return Config{}, fmt.Errorf("read pooling config: %w", err)
	}
	if data, err := safefile.ReadFile(filepath.Join(dir, "sentence_bert_config.json"), MaxConfigBytes); err == nil {
		var sb struct {
			MaxSeqLength int `json:"max_seq_length"`
		}
		if err := json.Unmarshal(data, &sb); err != nil {
			return Config{}, fmt.Errorf("read sentence_bert_config.json: %w: %v", errs.ErrInvalid, err)
		}
		c.MaxSeqLength = sb.MaxSeqLength
	} else if !errors.Is(err, fs.ErrNotExist) {
		return Config{}, fmt.Errorf("read sentence_bert_config.json: %w", err)
	}
	if err := c.Validate(); err != nil {
		return Config{}, fmt.Errorf("read config: %w", err)
	}
	return c, nil
}

// parseConfig decodes config.json without validating it.
func parseConfig(data []byte) (Config, error) {
	var h hfConfig
	if err := json.Unmarshal(data, &h); err != nil {
		return Config{}, fmt.Errorf("%w: config.json: %v", errs.ErrInvalid, err)
	}
	if h.PositionType != "" && h.PositionType != "absolute" {
		return Config{}, fmt.Errorf("%w: unsupported position_embedding_type %q", errs.ErrInvalid, h.PositionType)
	}
	c := Config{
		ModelType:        h.ModelType,
		VocabSize:        h.VocabSize,
		HiddenSize:       h.HiddenSize,
		NumLayers:        h.NumLayers,
		NumHeads:         h.NumHeads,
		IntermediateSize: h.IntermediateSize,
		MaxPositions:     h.MaxPositions,
		TypeVocabSize:    h.TypeVocabSize,
		LayerNormEps:     h.LayerNormEps,
		HiddenAct:        h.HiddenAct,
		Pooling:          PoolingMean,
	}
	if c.TypeVocabSize == 0 {
		c.TypeVocabSize = 2
	}
	if c.LayerNormEps == 0 {
		c.LayerNormEps = 1e-12
	}
	if c.HiddenAct == "" {
		c.HiddenAct = "gelu"
	}
	switch {
	case h.PadTokenID != nil:
		c.PadTokenID = *h.PadTokenID
	case c.isRoBERTa():
		c.PadTokenID = 1
	}
	return c, nil
}

// parsePooling decodes 1_Pooling/config.json.
func parsePooling(data []byte) (Pooling, error) {
	var p struct {
		CLS          bool `json:"pooling_mode_cls_token"`
		Mean         bool `json:"pooling_mode_mean_tokens"`
		Max          bool `json:"pooling_mode_max_tokens"`
		MeanSqrt     bool `json:"pooling_mode_mean_sqrt_len_tokens"`
		WeightedMean bool `json:"pooling_mode_weightedmean_tokens"`
		LastToken    bool `json:"pooling_mode_lasttoken"`
	}
	if err := json.Unmarshal(data, &p); err != nil {
		return "", fmt.Errorf("%w: %v", errs.ErrInvalid, err)
	}
	var modes []string
	for _, m := range []struct {
		on   bool
		name string
	}{{p.CLS, "cls"}, {p.Mean, "mean"}, {p.Max, "max"}, {p.MeanSqrt, "mean_sqrt_len"}, {p.WeightedMean, "weightedmean"}, {p.LastToken, "lasttoken"}} {
		if m.on {
			modes = append(modes, m.name)
		}
	}
	switch {
	case len(modes) == 0:
		return PoolingMean, nil
	case len(modes) == 1 && modes[0] == "mean":
		return PoolingMean, nil
	case len(modes) == 1 && modes[0] == "cls":
		return PoolingCLS, nil
	}
	return "", fmt.Errorf("%w: unsupported pooling %s", errs.ErrInvalid, strings.Join(modes, "+"))
}
