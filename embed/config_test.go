package embed_test

import (
	"errors"
	"os"
	"path/filepath"
	"testing"

	"github.com/holomem/holomem"
	"github.com/holomem/holomem/embed"
)

// The config.json of sentence-transformers/paraphrase-multilingual-MiniLM-L12-v2.
const miniLML12JSON = `{
  "_name_or_path": "old_models/paraphrase-multilingual-MiniLM-L12-v2/0_Transformer",
  "architectures": ["BertModel"],
  "attention_probs_dropout_prob": 0.1,
  "gradient_checkpointing": false,
  "hidden_act": "gelu",
  "hidden_dropout_prob": 0.1,
  "hidden_size": 384,
  "initializer_range": 0.02,
  "intermediate_size": 1536,
  "layer_norm_eps": 1e-12,
  "max_position_embeddings": 512,
  "model_type": "bert",
  "num_attention_heads": 12,
  "num_hidden_layers": 12,
  "pad_token_id": 0,
  "position_embedding_type": "absolute",
  "transformers_version": "4.7.0",
  "type_vocab_size": 2,
  "use_cache": true,
  "vocab_size": 250037
}`

const xlmrJSON = `{
  "architectures": ["XLMRobertaModel"], "bos_token_id": 0, "eos_token_id": 2,
  "hidden_act": "gelu", "hidden_size": 384, "intermediate_size": 1536,
  "layer_norm_eps": 1e-05, "max_position_embeddings": 514, "model_type": "xlm-roberta",
  "num_attention_heads": 12, "num_hidden_layers": 12, "pad_token_id": 1,
  "type_vocab_size": 1, "vocab_size": 250002
}`

func writeModelFiles(t *testing.T, files map[string]string) string {
	t.Helper()
	dir := t.TempDir()
	for name, body := range files {
		p := filepath.Join(dir, name)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return dir
}

func TestReadConfig(t *testing.T) {
	t.Run("XLMR", func(t *testing.T) {
		dir := writeModelFiles(t, map[string]string{
			"config.json":               xlmrJSON,
			"sentence_bert_config.json": `{"max_seq_length": 128, "do_lower_case": false}`,
			"1_Pooling/config.json":     `{"word_embedding_dimension": 384, "pooling_mode_cls_token": false, "pooling_mode_mean_tokens": true, "pooling_mode_max_tokens": false, "pooling_mode_mean_sqrt_len_tokens": false}`,
		})
		got, err := embed.ReadConfig(dir)
		if err != nil {
			t.Fatal(err)
		}
		if got != embed.MiniLML12Config {
			t.Fatalf("ReadConfig = %+v, want %+v", got, embed.MiniLML12Config)
		}
	})
	t.Run("BERTDefaults", func(t *testing.T) {
		dir := writeModelFiles(t, map[string]string{"config.json": miniLML12JSON})
		got, err := embed.ReadConfig(dir)
		if err != nil {
			t.Fatal(err)
		}
		if got.ModelType != "bert" || got.Pooling != embed.PoolingMean || got.PadTokenID != 0 || got.LayerNormEps != 1e-12 || got.MaxSeqLength != 0 {
			t.Fatalf("ReadConfig = %+v", got)
		}
	})
	t.Run("CLS", func(t *testing.T) {
		dir := writeModelFiles(t, map[string]string{
			"config.json":           xlmrJSON,
			"1_Pooling/config.json": `{"pooling_mode_cls_token": true}`,
		})
		got, err := embed.ReadConfig(dir)
		if err != nil {
			t.Fatal(err)
		}
		if got.Pooling != embed.PoolingCLS {
			t.Fatalf("Pooling = %q", got.Pooling)
		}
	})
	for _, tc := range []struct {
		name  string
		files map[string]string
	}{
		{"ErrModelType", map[string]string{"config.json": `{"model_type":"gpt2","vocab_size":10,"hidden_size":8,"num_hidden_layers":1,"num_attention_heads":1,"intermediate_size":8,"max_position_embeddings":8}`}},
		{"ErrJSON", map[string]string{"config.json": `{"model_type":`}},
		{"ErrHeads", map[string]string{"config.json": `{"model_type":"bert","vocab_size":10,"hidden_size":10,"num_hidden_layers":1,"num_attention_heads":3,"intermediate_size":8,"max_position_embeddings":8}`}},
		{"ErrZeroLayers", map[string]string{"config.json": `{"model_type":"bert","vocab_size":10,"hidden_size":8,"num_hidden_layers":0,"num_attention_heads":1,"intermediate_size":8,"max_position_embeddings":8}`}},
		{"ErrRelativePositions", map[string]string{"config.json": `{"model_type":"bert","position_embedding_type":"relative_key","vocab_size":10,"hidden_size":8,"num_hidden_layers":1,"num_attention_heads":1,"intermediate_size":8,"max_position_embeddings":8}`}},
		{"ErrMaxPooling", map[string]string{"config.json": xlmrJSON, "1_Pooling/config.json": `{"pooling_mode_max_tokens": true}`}},
		{"ErrSentenceBERTJSON", map[string]string{"config.json": xlmrJSON, "sentence_bert_config.json": `[`}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := embed.ReadConfig(writeModelFiles(t, tc.files))
			if !errors.Is(err, holomem.ErrInvalid) {
				t.Fatalf("err = %v, want ErrInvalid", err)
			}
		})
	}
}

func TestConfig_MaxTokens(t *testing.T) {
	for _, tc := range []struct {
		name string
		edit func(*embed.Config)
		want int
	}{
		{"SentenceBERT", func(c *embed.Config) {}, 128},
		{"XLMRDefault", func(c *embed.Config) { c.MaxSeqLength = 0 }, 512},
		{"CappedByPositions", func(c *embed.Config) { c.MaxSeqLength = 1000 }, 512},
		{"BERTDefault", func(c *embed.Config) { c.ModelType, c.MaxSeqLength, c.PadTokenID = "bert", 0, 0 }, 512},
	} {
		t.Run(tc.name, func(t *testing.T) {
			cfg := embed.MiniLML12Config
			cfg.VocabSize, cfg.HiddenSize, cfg.NumHeads, cfg.IntermediateSize, cfg.NumLayers = 10, 8, 1, 8, 1
			tc.edit(&cfg)
			dir := t.TempDir()
			if err := embed.GenerateModel(dir, cfg, 1); err != nil {
				t.Fatal(err)
			}
			e, err := embed.Open(dir, nil)
			if err != nil {
				t.Fatal(err)
			}
			defer e.Close()
			if got := e.MaxTokens(); got != tc.want {
				t.Fatalf("MaxTokens() = %d, want %d", got, tc.want)
			}
		})
	}
}

// FuzzReadConfig checks that no config.json panics and that accepted ones validate.
func FuzzReadConfig(f *testing.F) {
	f.Add(xlmrJSON, `{"pooling_mode_mean_tokens": true}`)
	f.Add(miniLML12JSON, `{"pooling_mode_cls_token": true}`)
	f.Add(`{"model_type":"roberta","vocab_size":-1}`, `{}`)
	f.Fuzz(func(t *testing.T, cfg, pooling string) {
		if testing.Short() && len(cfg) > 4096 {
			t.Skip()
		}
		dir := t.TempDir()
		os.WriteFile(filepath.Join(dir, "config.json"), []byte(cfg), 0o644)
		os.MkdirAll(filepath.Join(dir, "1_Pooling"), 0o755)
		os.WriteFile(filepath.Join(dir, "1_Pooling", "config.json"), []byte(pooling), 0o644)
		c, err := embed.ReadConfig(dir)
		if err != nil {
			return
		}
		if err := c.Validate(); err != nil {
			t.Fatalf("ReadConfig accepted an invalid config: %v", err)
		}
	})
}
