package spm

import (
	"bytes"
	"encoding/base64"
	"encoding/json"
)

// ConvertToTokenizerJSON turns an XLM-R style SentencePiece model into the
// tokenizer.json Hugging Face's XLMRobertaConverter (convert_slow_tokenizer.py)
// writes for it: vocabulary <s>, <pad>, </s>, <unk>, then the pieces from
// SentencePiece id 3 on with their scores, then <mask>; unk_id 3; normalizer
// Sequence[Precompiled(charsmap), Replace(" {2,}" -> " ")]; Metaspace
// pre-tokenizer; <s> $A </s> template post-processor.
func ConvertToTokenizerJSON(model []byte) ([]byte, error) {
	m, err := parseModelProto(string(model))
	if err != nil {
		return nil, err
	}
	type pair [2]any
	vocab := []pair{{"<s>", 0.0}, {"<pad>", 0.0}, {"</s>", 0.0}, {"<unk>", 0.0}}
	for _, p := range m.pieces[3:] {
		vocab = append(vocab, pair{p.text, float64(p.score)})
	}
	vocab = append(vocab, pair{"<mask>", 0.0})
	mask := len(vocab) - 1
	type added struct {
		ID         int    `json:"id"`
		Content    string `json:"content"`
		SingleWord bool   `json:"single_word"`
		Lstrip     bool   `json:"lstrip"`
		Rstrip     bool   `json:"rstrip"`
		Normalized bool   `json:"normalized"`
		Special    bool   `json:"special"`
	}
	special := func(id int, s string) added { return added{ID: id, Content: s, Special: true} }
	maskTok := special(mask, "<mask>")
	maskTok.Lstrip = true
	tok := func(id string) map[string]any {
		return map[string]any{"SpecialToken": map[string]any{"id": id, "type_id": 0}}
	}
	seq := func(id string) map[string]any {
		return map[string]any{"Sequence": map[string]any{"id": id, "type_id": 0}}
	}
	doc := struct {
		Version       string         `json:"version"`
		Truncation    any            `json:"truncation"`
		Padding       any            `json:"padding"`
		AddedTokens   []added        `json:"added_tokens"`
		Normalizer    map[string]any `json:"normalizer"`
		PreTokenizer  map[string]any `json:"pre_tokenizer"`
		PostProcessor map[string]any `json:"post_processor"`
		Decoder       map[string]any `json:"decoder"`
		Model         map[string]any `json:"model"`
	}{
		Version:     "1.0",
		AddedTokens: []added{special(0, "<s>"), special(1, "<pad>"), special(2, "</s>"), special(3, "<unk>"), maskTok},
		Normalizer: map[string]any{"type": "Sequence", "normalizers": []any{
			map[string]any{"type": "Precompiled", "precompiled_charsmap": base64.StdEncoding.EncodeToString([]byte(m.charsmap))},
			map[string]any{"type": "Replace", "pattern": map[string]any{"Regex": " {2,}"}, "content": " "},
		}},
		PreTokenizer: map[string]any{"type": "Metaspace", "replacement": "▁", "prepend_scheme": "always", "split": true},
		PostProcessor: map[string]any{
			"type":   "TemplateProcessing",
			"single": []any{tok("<s>"), seq("A"), tok("</s>")},
			"pair":   []any{tok("<s>"), seq("A"), tok("</s>"), tok("</s>"), seq("B"), tok("</s>")},
			"special_tokens": map[string]any{
				"<s>":  map[string]any{"id": "<s>", "ids": []int{0}, "tokens": []string{"<s>"}},
				"</s>": map[string]any{"id": "</s>", "ids": []int{2}, "tokens": []string{"</s>"}},
			},
		},
		Decoder: map[string]any{"type": "Metaspace", "replacement": "▁", "prepend_scheme": "always", "split": true},
		Model:   map[string]any{"type": "Unigram", "unk_id": 3, "vocab": vocab, "byte_fallback": false},
	}
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false) // as Python's json.dumps writes it
	if err := enc.Encode(doc); err != nil {
		return nil, err
	}
	return buf.Bytes(), nil
}
