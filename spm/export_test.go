package spm

import (
	"bytes"
	"encoding/base64"
	"encoding/binary"
	"encoding/json"
	"math"
	"math/rand/v2"
	"strings"
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
	for i := 3; i < m.pieces.len(); i++ {
		vocab = append(vocab, pair{m.pieces.text[i], float64(m.pieces.entry[i].score)})
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

// SynthModel returns a serialized XLM-R layout ModelProto with n pieces:
// <unk>, <s>, </s>, then distinct random pieces over several scripts with
// descending scores, and the nmt_nfkc charsmap of testdata/fixture.model.
// It stands in for the real 250k-piece model in load benchmarks.
func SynthModel(n int, charsmap []byte) []byte {
	rng := rand.New(rand.NewPCG(1, 2))
	alphabets := [][]rune{
		[]rune("abcdefghijklmnopqrstuvwxyz"),
		[]rune("абвгдежзийклмнопрстуфхцчшщыьэюя"),
		[]rune("的一是不了人我在有他这中大来上国个到说们为子和你地出道也时年得就那要下以生会自着去之过家学对可"),
		[]rune("αβγδεζηθικλμνξοπρστυφχψω"),
	}
	var b []byte
	var scratch []byte
	addPiece := func(text string, score float32, typ int) {
		scratch = scratch[:0]
		scratch = appendTag(scratch, 1, 2)
		scratch = appendVarint(scratch, uint64(len(text)))
		scratch = append(scratch, text...)
		scratch = appendTag(scratch, 2, 5)
		scratch = binary.LittleEndian.AppendUint32(scratch, math.Float32bits(score))
		if typ != 1 {
			scratch = appendTag(scratch, 3, 0)
			scratch = appendVarint(scratch, uint64(typ))
		}
		b = appendTag(b, 1, 2)
		b = appendVarint(b, uint64(len(scratch)))
		b = append(b, scratch...)
	}
	addPiece("<unk>", 0, 2)
	addPiece("<s>", 0, 3)
	addPiece("</s>", 0, 3)
	seen := map[string]bool{}
	for len(seen) < n-3 {
		a := alphabets[rng.IntN(len(alphabets))]
		var sb strings.Builder
		if rng.IntN(2) == 0 {
			sb.WriteString("▁")
		}
		for range 1 + rng.IntN(8) {
			sb.WriteRune(a[rng.IntN(len(a))])
		}
		if s := sb.String(); !seen[s] {
			seen[s] = true
			addPiece(s, -float32(len(seen))/float32(n)*15-1, 1)
		}
	}
	var ts []byte
	ts = appendTag(ts, 3, 0)
	ts = appendVarint(ts, 1)
	ts = appendTag(ts, 43, 0)
	ts = appendVarint(ts, math.MaxUint64) // pad_id -1
	b = appendTag(b, 2, 2)
	b = appendVarint(b, uint64(len(ts)))
	b = append(b, ts...)
	var ns []byte
	ns = appendTag(ns, 1, 2)
	ns = appendVarint(ns, 8)
	ns = append(ns, "nmt_nfkc"...)
	ns = appendTag(ns, 2, 2)
	ns = appendVarint(ns, uint64(len(charsmap)))
	ns = append(ns, charsmap...)
	b = appendTag(b, 3, 2)
	b = appendVarint(b, uint64(len(ns)))
	return append(b, ns...)
}

// Charsmap returns the precompiled charsmap of a serialized model.
func Charsmap(model []byte) ([]byte, error) {
	m, err := parseModelProto(string(model))
	if err != nil {
		return nil, err
	}
	return []byte(m.charsmap), nil
}

func appendTag(b []byte, field, typ int) []byte { return appendVarint(b, uint64(field<<3|typ)) }

func appendVarint(b []byte, v uint64) []byte { return binary.AppendUvarint(b, v) }
