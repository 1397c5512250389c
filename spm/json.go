package spm

import (
	"encoding/base64"
	"encoding/json"
	"fmt"
	"strconv"

	"github.com/holomem/holomem/errs"
)

// hfTokenizer is the part of a Hugging Face tokenizer.json this package
// reads.
type hfTokenizer struct {
	AddedTokens []struct {
		ID      int    `json:"id"`
		Content string `json:"content"`
		Special bool   `json:"special"`
	} `json:"added_tokens"`
	Normalizer    *hfComponent `json:"normalizer"`
	PreTokenizer  *hfComponent `json:"pre_tokenizer"`
	PostProcessor *hfComponent `json:"post_processor"`
	Model         struct {
		Type         string `json:"type"`
		UnkID        *int   `json:"unk_id"`
		ByteFallback bool   `json:"byte_fallback"`
		// The vocabulary is read by parseHFVocab.
	} `json:"model"`
}

// hfComponent is any normalizer, pre-tokenizer or post-processor; each
// type uses some of the fields.
type hfComponent struct {
	Type string `json:"type"`

	// Sequence.
	Normalizers   []*hfComponent `json:"normalizers"`
	Pretokenizers []*hfComponent `json:"pretokenizers"`
	Processors    []*hfComponent `json:"processors"`

	// Precompiled.
	PrecompiledCharsmap *string `json:"precompiled_charsmap"`

	// Replace.
	Pattern struct {
		String *string `json:"String"`
		Regex  *string `json:"Regex"`
	} `json:"pattern"`
	Content string `json:"content"`

	// Metaspace.
	Replacement    *string `json:"replacement"`
	AddPrefixSpace *bool   `json:"add_prefix_space"`
	PrependScheme  string  `json:"prepend_scheme"`

	// TemplateProcessing.
	Single []struct {
		SpecialToken *struct {
			ID string `json:"id"`
		} `json:"SpecialToken"`
		Sequence *struct {
			ID string `json:"id"`
		} `json:"Sequence"`
	} `json:"single"`
	SpecialTokens map[string]struct {
		IDs []int `json:"ids"`
	} `json:"special_tokens"`

	// RobertaProcessing and BertProcessing: ["<s>", 0].
	Cls []json.RawMessage `json:"cls"`
	Sep []json.RawMessage `json:"sep"`
}

// FromTokenizerJSON builds a Tokenizer from a Hugging Face tokenizer.json
// holding a Unigram model converted from SentencePiece (XLM-R's layout:
// Precompiled normalizer, Metaspace pre-tokenizer, <s> $A </s>
// post-processor). Native ids and model ids are both vocabulary positions.
// Files with another model type or with normalizers this package cannot
// reproduce return an error wrapping errs.ErrInvalid. The Tokenizer
// keeps no reference to data, which must not change during the call.
func FromTokenizerJSON(data []byte) (*Tokenizer, error) {
	hf, vocab, err := parseHF(borrowString(data))
	if err != nil {
		return nil, err
	}
	if hf.Model.Type != "Unigram" {
		return nil, invalidJSON("model type %q is not Unigram", hf.Model.Type)
	}
	if vocab.len() == 0 {
		return nil, invalidJSON("vocab is missing or empty")
	}
	if hf.Model.UnkID == nil || *hf.Model.UnkID < 0 || *hf.Model.UnkID >= vocab.len() {
		return nil, invalidJSON("unk_id missing or out of range")
	}
	vocab.entry[*hf.Model.UnkID].typ = typeUnknown
	for _, a := range hf.AddedTokens {
		if a.ID < 0 || a.ID >= vocab.len() || a.ID == *hf.Model.UnkID || vocab.text[a.ID] != a.Content {
			continue // an added token outside the Unigram vocabulary never comes from text here
		}
		if a.Special {
			vocab.entry[a.ID].typ = typeControl
		} else {
			vocab.entry[a.ID].typ = typeUserDefined
		}
	}
	if hf.Model.ByteFallback {
		for i, text := range vocab.text {
			if _, ok := parseBytePiece(text); ok && vocab.entry[i].typ == typeNormal {
				vocab.entry[i].typ = typeByte
			}
		}
	}

	// <s> and </s> frame sequences; they never come from text, even when
	// added_tokens does not say they are special.
	var pp framing
	pp.bos, pp.eos = -1, -1
	if err := pp.read(hf.PostProcessor, vocab.len()); err != nil {
		return nil, err
	}
	index := func(s string) int32 {
		for i, text := range vocab.text {
			if text == s {
				return int32(i)
			}
		}
		return -1
	}
	if pp.bos < 0 && pp.eos < 0 {
		pp.bos, pp.eos = index("<s>"), index("</s>")
	}
	for _, id := range []int32{pp.bos, pp.eos} {
		if id >= 0 && id != int32(*hf.Model.UnkID) {
			vocab.entry[id].typ = typeControl
		}
	}

	var n normalizer
	if err := n.fromHFNormalizer(hf.Normalizer); err != nil {
		return nil, err
	}
	if err := n.fromHFPreTokenizer(hf.PreTokenizer); err != nil {
		return nil, err
	}
	t, err := newTokenizer(vocab, n, hf.Model.ByteFallback)
	if err != nil {
		return nil, err
	}
	t.bos, t.eos = pp.bos, pp.eos
	t.pad = max(index("<pad>"), 0)
	t.vocabSize = vocab.len()
	return t, nil
}

// framing holds the ids of the tokens around a single sequence.
type framing struct{ bos, eos int32 }

func invalidJSON(format string, args ...any) error {
	return fmt.Errorf("spm: tokenizer.json: %s: %w", fmt.Sprintf(format, args...), errs.ErrInvalid)
}

// fromHFNormalizer reads the Precompiled charsmap and the whitespace rule
// Hugging Face's SentencePiece converter adds.
func (n *normalizer) fromHFNormalizer(c *hfComponent) error {
	if c == nil {
		return nil
	}
	switch c.Type {
	case "Sequence":
		for _, sub := range c.Normalizers {
			if err := n.fromHFNormalizer(sub); err != nil {
				return err
			}
		}
	case "Precompiled":
		if c.PrecompiledCharsmap == nil || *c.PrecompiledCharsmap == "" {
			return nil
		}
		blob, err := base64.StdEncoding.DecodeString(*c.PrecompiledCharsmap)
		if err != nil {
			return invalidJSON("precompiled_charsmap: %v", err)
		}
		return n.setCharsmap(string(blob))
	case "Replace":
		// The converter's stand-in for remove_extra_whitespaces.
		if c.Pattern.Regex == nil || *c.Pattern.Regex != " {2,}" {
			return invalidJSON("unsupported Replace normalizer")
		}
		n.removeExtraWS = true
	case "Strip":
		n.removeExtraWS = true
	default:
		return invalidJSON("unsupported normalizer %q", c.Type)
	}
	return nil
}

// fromHFPreTokenizer reads Metaspace: it escapes spaces as U+2581 and adds
// the dummy prefix unless told not to.
func (n *normalizer) fromHFPreTokenizer(c *hfComponent) error {
	if c == nil {
		return nil
	}
	switch c.Type {
	case "Sequence":
		for _, sub := range c.Pretokenizers {
			if err := n.fromHFPreTokenizer(sub); err != nil {
				return err
			}
		}
	case "Metaspace":
		if c.Replacement != nil && *c.Replacement != spaceSymbol {
			return invalidJSON("Metaspace replacement %q is not U+2581", *c.Replacement)
		}
		n.escapeWS = true
		switch {
		case c.PrependScheme != "":
			n.addDummyPrefix = c.PrependScheme != "never"
		case c.AddPrefixSpace != nil:
			n.addDummyPrefix = *c.AddPrefixSpace
		default:
			n.addDummyPrefix = true
		}
	case "WhitespaceSplit":
		n.removeExtraWS = true
	default:
		return invalidJSON("unsupported pre_tokenizer %q", c.Type)
	}
	return nil
}

// read finds the ids of the tokens a post-processor puts around a single
// sequence.
func (t *framing) read(c *hfComponent, size int) error {
	if c == nil {
		return nil
	}
	inRange := func(id int) (int32, error) {
		if id < 0 || id >= size {
			return -1, invalidJSON("post_processor id %d out of range", id)
		}
		return int32(id), nil
	}
	var err error
	switch c.Type {
	case "Sequence":
		for _, sub := range c.Processors {
			if err := t.read(sub, size); err != nil {
				return err
			}
		}
	case "TemplateProcessing":
		// Expect SpecialToken? Sequence SpecialToken?.
		seen := false
		for _, it := range c.Single {
			if it.Sequence != nil {
				seen = true
				continue
			}
			if it.SpecialToken == nil {
				continue
			}
			st, ok := c.SpecialTokens[it.SpecialToken.ID]
			if !ok || len(st.IDs) != 1 {
				return invalidJSON("template token %q needs exactly one id", it.SpecialToken.ID)
			}
			if !seen {
				t.bos, err = inRange(st.IDs[0])
			} else {
				t.eos, err = inRange(st.IDs[0])
			}
			if err != nil {
				return err
			}
		}
	case "RobertaProcessing", "BertProcessing":
		if t.bos, err = pairID(c.Cls, size); err != nil {
			return err
		}
		if t.eos, err = pairID(c.Sep, size); err != nil {
			return err
		}
	case "ByteLevel":
	default:
		return invalidJSON("unsupported post_processor %q", c.Type)
	}
	return nil
}

// pairID reads the id of a ["<s>", 0] pair.
func pairID(p []json.RawMessage, size int) (int32, error) {
	var id int
	if len(p) != 2 || json.Unmarshal(p[1], &id) != nil || id < 0 || id >= size {
		return -1, invalidJSON("post_processor token %s", p)
	}
	return int32(id), nil
}

// parseHF walks the top level of a tokenizer.json. The vocabulary, most
// of a 17 MB file, is read by a dedicated scanner in one pass; the small
// parts go through encoding/json. Parts this package does not use are
// skipped after a structural check.
func parseHF(s string) (*hfTokenizer, pieceSet, error) {
	hf := new(hfTokenizer)
	var vocab pieceSet
	p := jsonScanner{s: s}
	field := func(dst any) error {
		raw, ok := p.skip()
		if !ok {
			return invalidJSON("malformed JSON at byte %d", p.i)
		}
		if err := json.Unmarshal([]byte(raw), dst); err != nil {
			return fmt.Errorf("spm: tokenizer.json: %w: %w", err, errs.ErrInvalid)
		}
		return nil
	}
	err := p.object(func(key string) error {
		switch key {
		case "added_tokens":
			return field(&hf.AddedTokens)
		case "normalizer":
			return field(&hf.Normalizer)
		case "pre_tokenizer":
			return field(&hf.PreTokenizer)
		case "post_processor":
			return field(&hf.PostProcessor)
		case "model":
			return p.object(func(key string) error {
				switch key {
				case "type":
					return field(&hf.Model.Type)
				case "unk_id":
					return field(&hf.Model.UnkID)
				case "byte_fallback":
					return field(&hf.Model.ByteFallback)
				case "vocab":
					if p.peek() != '[' {
						return field(new(any)) // another model's vocabulary; the type check rejects it
					}
					var err error
					vocab, err = p.vocab()
					return err
				}
				return field(new(json.RawMessage))
			})
		}
		if _, ok := p.skip(); !ok {
			return invalidJSON("malformed JSON at byte %d", p.i)
		}
		return nil
	})
	if err != nil {
		return nil, pieceSet{}, err
	}
	p.space()
	if p.i != len(s) {
		return nil, pieceSet{}, invalidJSON("trailing data at byte %d", p.i)
	}
	return hf, vocab, nil
}

// object reads a JSON object, calling fn with the scanner on each value.
func (p *jsonScanner) object(fn func(key string) error) error {
	if !p.consume('{') {
		return invalidJSON("expected an object at byte %d", p.i)
	}
	if p.consume('}') {
		return nil
	}
	for {
		key, ok := p.str()
		if !ok || !p.consume(':') {
			return invalidJSON("malformed object key at byte %d", p.i)
		}
		if err := fn(key); err != nil {
			return err
		}
		if p.consume('}') {
			return nil
		}
		if !p.consume(',') {
			return invalidJSON("expected , or } at byte %d", p.i)
		}
	}
}

func (p *jsonScanner) peek() byte {
	p.space()
	if p.i < len(p.s) {
		return p.s[p.i]
	}
	return 0
}

// skip steps over one JSON value and returns its text. It checks nesting
// and strings, not every detail of literals; values that are used are
// decoded by encoding/json, which checks the rest.
func (p *jsonScanner) skip() (string, bool) {
	p.space()
	start := p.i
	depth := 0
	for p.i < len(p.s) {
		switch c := p.s[p.i]; c {
		case '"':
			if _, ok := p.str(); !ok {
				return "", false
			}
			if depth == 0 {
				return p.s[start:p.i], true
			}
			continue
		case '{', '[':
			depth++
		case '}', ']':
			if depth == 0 { // the end of a literal that closes its container
				return p.s[start:p.i], p.i > start
			}
			depth--
			if depth == 0 {
				p.i++
				return p.s[start:p.i], true
			}
		case ',', ':', ' ', '\t', '\n', '\r':
			if depth == 0 {
				return p.s[start:p.i], p.i > start
			}
		}
		p.i++
	}
	return p.s[start:p.i], depth == 0 && p.i > start
}

// vocab reads [["piece", score], ...] without encoding/json's
// per-element reflection: a 250k-entry vocabulary is most of the file.
// Pieces without escapes are substrings of s.
func (p *jsonScanner) vocab() (pieceSet, error) {
	if !p.consume('[') {
		return pieceSet{}, invalidJSON("vocab is not an array")
	}
	vocab := newPieceSet((len(p.s)-p.i)/24 + 1)
	if p.consume(']') {
		return pieceSet{}, invalidJSON("vocab is empty")
	}
	for {
		if !p.consume('[') {
			return pieceSet{}, invalidJSON("vocab entry %d is not a pair", vocab.len())
		}
		text, ok := p.str()
		if !ok || !p.consume(',') {
			return pieceSet{}, invalidJSON("vocab entry %d: bad piece", vocab.len())
		}
		score, ok := p.number()
		if !ok || !p.consume(']') {
			return pieceSet{}, invalidJSON("vocab entry %d: bad score", vocab.len())
		}
		vocab.add(piece{text: text, score: score, typ: typeNormal})
		if p.consume(']') {
			break
		}
		if !p.consume(',') {
			return pieceSet{}, invalidJSON("vocab entry %d: expected , or ]", vocab.len())
		}
	}
	return vocab, nil
}

// jsonScanner reads the few JSON tokens a vocabulary is made of.
type jsonScanner struct {
	s string
	i int
}

func (p *jsonScanner) space() {
	for p.i < len(p.s) {
		switch p.s[p.i] {
		case ' ', '\t', '\n', '\r':
			p.i++
		default:
			return
		}
	}
}

func (p *jsonScanner) consume(c byte) bool {
	p.space()
	if p.i < len(p.s) && p.s[p.i] == c {
		p.i++
		return true
	}
	return false
}

// str reads a JSON string; escaped ones go through encoding/json.
func (p *jsonScanner) str() (string, bool) {
	p.space()
	if p.i >= len(p.s) || p.s[p.i] != '"' {
		return "", false
	}
	start := p.i
	escaped := false
	for j := start + 1; j < len(p.s); j++ {
		switch p.s[j] {
		case '\\':
			escaped = true
			j++
		case '"':
			p.i = j + 1
			if !escaped {
				return p.s[start+1 : j], true
			}
			var out string
			if json.Unmarshal([]byte(p.s[start:j+1]), &out) != nil {
				return "", false
			}
			return out, true
		}
	}
	return "", false
}

// number reads a JSON number as a float32 score.
func (p *jsonScanner) number() (float32, bool) {
	p.space()
	start := p.i
	for p.i < len(p.s) {
		c := p.s[p.i]
		if c == '-' || c == '+' || c == '.' || c == 'e' || c == 'E' || '0' <= c && c <= '9' {
			p.i++
			continue
		}
		break
	}
	text := p.s[start:p.i]
	if v, ok := quickScore(text); ok {
		return v, true
	}
	v, err := strconv.ParseFloat(text, 64)
	return float32(v), err == nil
}

// pow10 holds the powers of ten that float64 represents exactly.
var pow10 = [...]float64{1e0, 1e1, 1e2, 1e3, 1e4, 1e5, 1e6, 1e7, 1e8, 1e9, 1e10,
	1e11, 1e12, 1e13, 1e14, 1e15, 1e16, 1e17, 1e18, 1e19, 1e20, 1e21, 1e22}

// quickScore parses the plain decimals ("-3.4635426998138428") that
// tokenizer.json uses for scores, several times faster than ParseFloat.
// The scores are float32 values printed with float64 precision; the one
// rounding of the mantissa here (relative error 2^-53) is far below half a
// float32 ulp, so the float32 result is the same. Anything else (exponents,
// more than 19 digits) is left to strconv.
func quickScore(s string) (float32, bool) {
	i, neg := 0, false
	if i < len(s) && s[i] == '-' {
		neg = true
		i++
	}
	var m uint64
	digits, frac, dot, seen := 0, 0, false, false
	for ; i < len(s); i++ {
		c := s[i]
		switch {
		case c == '.' && !dot:
			dot = true
		case '0' <= c && c <= '9':
			seen = true
			if m == 0 && c == '0' {
				if dot {
					frac++
				}
				continue
			}
			m = m*10 + uint64(c-'0')
			digits++
			if dot {
				frac++
			}
		default:
			return 0, false
		}
	}
	if !seen || digits > 19 || frac >= len(pow10) {
		return 0, false
	}
	v := float64(m) / pow10[frac]
	if neg {
		v = -v
	}
	return float32(v), true
}
