package embed

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"

	"github.com/holomem/holomem/errs"
)

// GenerateTokenizer writes dir/tokenizer.json: a small SentencePiece
// Unigram tokenizer in the Hugging Face format (XLM-R layout: <s>=0,
// <pad>=1, </s>=2, <unk>=3) whose pieces are common English and Russian
// words and single characters, so that Embed on text works on a model made
// by GenerateModel and its tokenizer cost can be measured. Its
// segmentations are plausible, not those of any real model. vocabSize (the
// model's) caps the number of pieces and must be at least 4.
func GenerateTokenizer(dir string, vocabSize int) error {
	if vocabSize < 4 {
		return fmt.Errorf("generate tokenizer: %w: vocabulary of %d ids has no room for the 4 special tokens", errs.ErrInvalid, vocabSize)
	}
	type piece [2]any
	vocab := []piece{{"<s>", 0.0}, {"<pad>", 0.0}, {"</s>", 0.0}, {"<unk>", 0.0}}
	seen := map[string]bool{}
	add := func(p string, score float64) {
		if !seen[p] {
			seen[p] = true
			vocab = append(vocab, piece{p, score})
		}
	}
	for _, w := range genTokWords {
		add("\u2581"+w, -6)
	}
	for _, r := range genTokChars {
		add("\u2581"+string(r), -9)
		add(string(r), -10)
	}
	if len(vocab) > vocabSize {
		vocab = vocab[:vocabSize]
	}
	tok := map[string]any{
		"version": "1.0",
		"added_tokens": []map[string]any{
			{"id": 0, "content": "<s>", "special": true},
			{"id": 1, "content": "<pad>", "special": true},
			{"id": 2, "content": "</s>", "special": true},
			{"id": 3, "content": "<unk>", "special": true},
		},
		"normalizer":     nil,
		"pre_tokenizer":  map[string]any{"type": "Metaspace", "replacement": "\u2581", "prepend_scheme": "always", "split": true},
		"post_processor": map[string]any{"type": "RobertaProcessing", "cls": []any{"<s>", 0}, "sep": []any{"</s>", 2}, "trim_offsets": true, "add_prefix_space": true},
		"model":          map[string]any{"type": "Unigram", "unk_id": 3, "vocab": vocab, "byte_fallback": false},
	}
	data, err := json.Marshal(tok)
	if err != nil {
		return fmt.Errorf("generate tokenizer: %w", err)
	}
	if err := os.WriteFile(filepath.Join(dir, "tokenizer.json"), data, 0o644); err != nil {
		return fmt.Errorf("generate tokenizer: %w", err)
	}
	return nil
}

var genTokWords = []string{
	"the", "of", "and", "to", "in", "a", "is", "that", "for", "it", "as", "was", "with", "be", "by", "on",
	"not", "he", "I", "this", "are", "or", "his", "from", "at", "which", "but", "have", "an", "had", "they",
	"you", "were", "their", "one", "all", "we", "can", "her", "has", "there", "been", "if", "more", "when",
	"will", "would", "who", "so", "no", "she", "other", "its", "may", "these", "about", "into", "over",
	"quick", "brown", "fox", "jumps", "lazy", "dog", "near", "river", "bank", "memory", "user", "prefers",
	"project", "meeting", "deploy", "service", "short", "words", "format",
	"и", "в", "не", "на", "что", "с", "по", "это", "как", "для", "Компактный", "формат",
}

const genTokChars = "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789.,;:!?'\"()-/" +
	"абвгдеёжзийклмнопрстуфхцчшщъыьэюяАБВГДЕЁЖЗИЙКЛМНОПРСТУФХЦЧШЩЪЫЬЭЮЯ"
