// Package spm is a pure-Go SentencePiece Unigram tokenizer, built to run
// the tokenizer of XLM-R and paraphrase-multilingual-MiniLM-L12-v2 exactly.
//
// # Model
//
// A [Tokenizer] is read from a SentencePiece ModelProto (the file XLM-R
// ships as sentencepiece.bpe.model, which despite its name holds a Unigram
// model) by [FromModelProto], or from a Hugging Face tokenizer.json by
// [FromTokenizerJSON]; [Load] takes a model directory and prefers
// tokenizer.json. The protobuf is decoded by a small hand-written wire
// reader, so the package has no dependencies.
//
// Encoding follows SentencePiece 0.1.97 step by step:
//
//   - Normalisation applies the model's precompiled charsmap (a Darts-clone
//     double-array trie plus replacement strings, e.g. nmt_nfkc) by longest
//     prefix match; bytes no rule covers are copied one character at a time
//     and a malformed UTF-8 byte becomes U+FFFD. Leading, trailing and
//     repeated spaces are removed, a dummy "▁" prefix is added and spaces
//     become U+2581, each as the model's normalizer_spec says. User-defined
//     pieces bypass normalisation.
//   - Segmentation is Viterbi over the normalised bytes as in
//     unigram::Model::EncodeOptimized, with the same arithmetic: path scores
//     are summed in double and stored as float per cell, which decides
//     near-ties. A character no piece covers becomes <unk> with score
//     min_score - 10 and a run of them is merged into one <unk>;
//     user-defined pieces get a bonus that always wins; with byte_fallback
//     an <unk> is spelled as <0xXX> byte pieces instead.
//
// # Ids
//
// [Tokenizer.Encode] returns native ids: SentencePiece ids for a .model
// (what spm_encode --output_format=id prints), vocabulary positions for a
// tokenizer.json. [Tokenizer.EncodeForModel] returns the ids the
// transformer expects, framed as <s> ... </s> and cut to a maximum length
// ([DefaultMaxLen] for MiniLM-L12); [Tokenizer.EncodeBatchForModel] also
// pads a batch and returns attention masks.
// For an XLM-R layout .model (<unk>=0, <s>=1, </s>=2) these follow
// fairseq's dictionary: <s>=0, <pad>=1, </s>=2, <unk>=3, SentencePiece id
// i >= 3 becomes i+1, and <mask> is the last id, so [Tokenizer.VocabSize]
// is pieces+2. Hugging Face's XLM-R tokenizer.json lists its vocabulary in
// that same order, so both files of one model give identical model ids.
//
// # Caveats
//
// The tokenizer.json reader takes from the file only what a converted
// SentencePiece model has: the Unigram vocabulary and scores, the
// Precompiled charsmap, Metaspace's prefix setting, the Replace(" {2,}")
// rule as remove_extra_whitespaces, and <s>/</s> from the post-processor.
// It then encodes with SentencePiece's rules, not with Hugging Face
// tokenizers' own: where the two disagree (HF keeps a trailing "▁" for
// trailing spaces, applies the charsmap per grapheme cluster, and turns
// literal "<s>" text into the special token) this package gives
// SentencePiece's answer, which is what the slow XLM-R tokenizer and
// fairseq give. Normalizers and
// pre-tokenizers other than those listed are rejected rather than ignored.
//
// Control pieces such as <s> are never produced from text, so user input
// cannot inject special tokens. Only Unigram models are supported.
//
// Encoding takes time and memory linear in the text (about 12 bytes of
// scratch per normalised byte) and the whole text is segmented even when
// EncodeForModel keeps only the first pieces, because Viterbi is global;
// callers embedding huge texts should cut them first.
//
// # Performance
//
// Loading builds a byte trie over the vocabulary from radix-sorted keys;
// for a 250k-piece model (the size of XLM-R's) that took about 40 ms of CPU
// (tokenizer.json: 60 ms) on a heavily shared 2-core machine, see
// BenchmarkFromModelProto_250k; the result holds about 10 MB. The input is
// read in place, not copied. Encoding a
// 1,000-word text takes about half a millisecond; a Tokenizer holds no
// locks and pools its scratch buffers.
//
// Parity with the reference implementation is tested against fixtures made
// by scripts/spm-fixture/gen.sh with Debian's spm_train and spm_encode.
package spm
