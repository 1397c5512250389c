// Package embed is an in-process sentence encoder for BERT and XLM-RoBERTa
// models in the Hugging Face / sentence-transformers format, written in pure
// Go (no cgo). It implements holomem.Embedder.
//
// # Model
//
// A model directory holds config.json (model_type bert, roberta or
// xlm-roberta; gelu or gelu_new), model.safetensors (F32, F16 or BF16;
// tensor names with or without the "roberta."/"bert." prefixes), and
// optionally 1_Pooling/config.json (mean or CLS pooling; mean is the
// default) and sentence_bert_config.json (max_seq_length). The forward pass
// is the standard post-LayerNorm encoder: word + position + token-type-0
// embeddings and LayerNorm, then per layer multi-head self-attention,
// residual and LayerNorm, a feed-forward block with exact (erf) GELU,
// residual and LayerNorm; then pooling over the real tokens and L2
// normalisation. RoBERTa models number positions from pad_token_id+1, BERT
// models from 0. The output matches ONNX Runtime on the same weights to
// about 2e-7 (see testdata/*/reference.json and scripts/onnx-ref).
//
// # Memory
//
// The encoder tensors (about 84 MB of float32 for multilingual MiniLM-L12)
// are read with pread into one anonymous mapping marked for transparent
// huge pages, and F16/BF16 tensors are widened to float32 on the way. Huge
// pages matter: a forward pass streams every weight once, and on 4 KiB
// pages (as with a file mapping of model.safetensors) the TLB misses made
// a 10-token pass about 50% slower. Unload unmaps the arena, so RSS drops
// at once. The word-embedding table (250002 x 384 floats, 384 MB) is never
// mapped or loaded: each token's row is read with pread when needed,
// because touching a mapped table pulls whole readahead windows into RSS
// for every distinct token.
//
// # Speed
//
// Matrix products use AVX-512 or AVX2+FMA assembly kernels on amd64
// (selected at run time with golang.org/x/sys/cpu, chosen with
// Options.Kernels, disabled with the purego build tag or Options.NoSIMD)
// and a pure-Go fallback elsewhere; all are tested against the reference,
// and the AVX-512 set gives the AVX2 set's results bit for bit. The weight
// matrices are packed at load into panels of 16 output columns; the
// kernel keeps a tile of up to 6 tokens x 16 outputs (AVX-512: 12 x 32,
// two panels) in registers and walks the panel once (broadcast-FMA, no
// horizontal sums). Bias, GELU and the residual add are applied to each
// tile as it leaves the kernel. Attention is fused per head and per block
// of 6 queries: scores, softmax (a float32 polynomial exp) and the
// weighted sum of values, without an L x L matrix. Sequences of a batch are packed without padding:
// attention runs per sequence over its own tokens, which is what a padded
// batch with an attention mask computes, minus the wasted work.
// Options.Threads splits the output columns of each product and the
// attention heads across goroutines.
//
// # Lifecycle
//
// [Open] reads the configuration and checks the safetensors header; the
// weights (and the tokenizer, from Options.LoadTokenizer, by default the
// spm package's SentencePiece reader) load on the first Embed and unload
// after Options.IdleTimeout and on Close. [BenchReport] measures load time,
// speed and RSS; [GenerateModel] writes random models of any shape for
// tests and benchmarks.
//
// # Caveats
//
// Texts are cut to MaxTokens tokens (max_seq_length, 128 for the MiniLM
// family) and, before tokenising, to 64 bytes per allowed token, so very
// long inputs cost nothing extra. An empty text is embedded from its
// special tokens alone, as sentence-transformers does; callers that want to
// reject empty facts must validate them first. Invalid UTF-8 is replaced
// with U+FFFD. Token type ids are always 0. Which architecture a model has
// comes from its config.json alone: the published
// paraphrase-multilingual-MiniLM-L12-v2 may declare itself "bert" (positions
// from 0) even though its tokenizer is XLM-R's, and is then run as BERT.
package embed
