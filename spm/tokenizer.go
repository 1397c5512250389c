package spm

import (
	"errors"
	"fmt"
	"io/fs"
	"path/filepath"
	"sync"
	"unsafe"

	"github.com/holomem/holomem/internal/leaf/safefile"

	"github.com/holomem/holomem/errs"
)

// DefaultMaxLen is the sequence limit, in model ids including <s> and
// </s>, of paraphrase-multilingual-MiniLM-L12-v2.
const DefaultMaxLen = 128

// File names Load looks for, in order of preference.
const (
	// TokenizerJSONFile is the Hugging Face tokenizer file of a model directory.
	TokenizerJSONFile = "tokenizer.json"
	// ModelProtoFile is the SentencePiece model file XLM-R derived models ship.
	ModelProtoFile = "sentencepiece.bpe.model"
)

// Tokenizer splits text into SentencePiece Unigram pieces and maps them to
// ids. It is immutable once built and safe for concurrent use.
//
// A Tokenizer has two id spaces. Native ids are those of the file it was
// loaded from: SentencePiece ids for a .model file, vocabulary positions for
// tokenizer.json; [Tokenizer.Encode] returns them. Model ids are what the
// transformer's embedding table expects; [Tokenizer.EncodeForModel] returns
// them. For a tokenizer.json the two are the same; for an XLM-R
// sentencepiece model they follow fairseq's dictionary (see the package
// documentation), so both files of one model give the same model ids.
type Tokenizer struct {
	vocab    []vocabEntry // by native id
	pieces   *trie        // normal, user-defined and unused pieces -> native id
	norm     normalizer
	unkID    int32
	minScore float32
	maxScore float32

	byteFallback bool
	byteIDs      [256]int32 // native id of <0xXX>, unk if the model lacks it

	toModel   []int32 // native id -> model id; nil means the same id
	bos       int32   // model id of <s>, -1 if none
	eos       int32   // model id of </s>, -1 if none
	pad       int32   // model id of <pad>
	vocabSize int     // number of model ids

	scratch sync.Pool // *encodeScratch
}

// vocabEntry is what encoding needs of a piece. The piece text lives only
// in the trie, so the loaded file is not kept in memory.
type vocabEntry struct {
	score float32
	typ   pieceType
}

// encodeScratch is per-call working memory, pooled across calls.
type encodeScratch struct {
	norm []byte
	best []bestPath
	ids  []int32
}

// Load reads the tokenizer of a model directory. It prefers tokenizer.json
// and falls back to sentencepiece.bpe.model when there is none; a
// tokenizer.json that exists but is corrupt or unsupported is an error, not
// a reason to fall back. It returns an error wrapping errs.ErrNotFound if
// neither file exists, and one wrapping errs.ErrInvalid if the file is
// corrupt or unsupported.
func Load(dir string) (*Tokenizer, error) {
	data, err := safefile.ReadFile(filepath.Join(dir, TokenizerJSONFile), maxTokenizerBytes)
	if err == nil {
		t, err := FromTokenizerJSON(data)
		if err != nil {
			return nil, fmt.Errorf("load %s: %w", TokenizerJSONFile, err)
		}
		return t, nil
	}
	if !errors.Is(err, fs.ErrNotExist) {
		return nil, fmt.Errorf("load tokenizer: %w", err)
	}
	data, err = safefile.ReadFile(filepath.Join(dir, ModelProtoFile), maxTokenizerBytes)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, fmt.Errorf("spm: no %s or %s in %s: %w", TokenizerJSONFile, ModelProtoFile, dir, errs.ErrNotFound)
	}
	if err != nil {
		return nil, fmt.Errorf("load tokenizer: %w", err)
	}
	t, err := FromModelProto(data)
	if err != nil {
		return nil, fmt.Errorf("load %s: %w", ModelProtoFile, err)
	}
	return t, nil
}

// FromModelProto builds a Tokenizer from a serialized SentencePiece
// ModelProto (a .model file). Only Unigram models are supported. A
// truncated, corrupt or non-Unigram model returns an error wrapping
// errs.ErrInvalid. The Tokenizer keeps no reference to data, which must
// not change during the call.
func FromModelProto(data []byte) (*Tokenizer, error) {
	m, err := parseModelProto(borrowString(data))
	if err != nil {
		return nil, err
	}
	if m.modelType != modelTypeUnigram {
		return nil, fmt.Errorf("spm: model type %d is not unigram (1): %w", m.modelType, errs.ErrInvalid)
	}
	n := normalizer{
		addDummyPrefix:  m.addDummyPrefix,
		removeExtraWS:   m.removeExtraWS,
		escapeWS:        m.escapeWS,
		treatWSAsSuffix: m.treatWSAsSuffix,
	}
	if err := n.setCharsmap(m.charsmap); err != nil {
		return nil, err
	}
	t, err := newTokenizer(m.pieces, n, m.byteFallback)
	if err != nil {
		return nil, err
	}
	t.setModelIDs(m)
	return t, nil
}

// borrowString views data as a string without copying it: a 250k-piece
// model is 5 MB (a tokenizer.json 17 MB), and loading is dominated by
// memory traffic. Only the constructors use it, and everything a Tokenizer
// keeps (trie arena, charsmap, replacement strings) is copied out, so the
// string does not outlive the call.
func borrowString(data []byte) string {
	return unsafe.String(unsafe.SliceData(data), len(data))
}

// setModelIDs chooses the model id space of a .model file. XLM-R's layout,
// which is also SentencePiece's default (<unk>=0, <s>=1, </s>=2), maps to
// fairseq's dictionary; any other layout keeps SentencePiece's ids.
func (t *Tokenizer) setModelIDs(m *modelProto) {
	v := t.vocab
	if len(v) >= 3 && m.unkID == 0 && m.bosID == 1 && m.eosID == 2 &&
		v[0].typ == typeUnknown && v[1].typ == typeControl && v[2].typ == typeControl {
		t.toModel = make([]int32, len(v))
		t.toModel[0], t.toModel[1], t.toModel[2] = fairseqUnk, fairseqBOS, fairseqEOS
		for i := 3; i < len(v); i++ {
			t.toModel[i] = int32(i + 1)
		}
		t.bos, t.eos, t.pad = fairseqBOS, fairseqEOS, fairseqPad
		t.vocabSize = len(v) + 2 // <pad> and <mask>
		return
	}
	valid := func(id int64) int32 {
		if id >= 0 && id < int64(len(v)) {
			return int32(id)
		}
		return -1
	}
	t.bos, t.eos, t.pad = valid(m.bosID), valid(m.eosID), max(valid(m.padID), 0)
	t.vocabSize = len(v)
}

// fairseq's dictionary puts these four symbols first; XLM-R's
// sentencepiece ids are shifted by one after them and <mask> comes last.
const (
	fairseqBOS = 0
	fairseqPad = 1
	fairseqEOS = 2
	fairseqUnk = 3
)

// newTokenizer builds the parts shared by both file formats. It takes
// ownership of vocab.entry.
func newTokenizer(vocab pieceSet, n normalizer, byteFallback bool) (*Tokenizer, error) {
	t := &Tokenizer{vocab: vocab.entry, norm: n, unkID: -1, byteFallback: byteFallback}
	var user []string
	for i, e := range vocab.entry {
		if vocab.text[i] == "" {
			return nil, corruptf("piece %d is empty", i)
		}
		switch e.typ {
		case typeUserDefined:
			user = append(user, vocab.text[i])
		case typeUnknown:
			if t.unkID >= 0 {
				return nil, corruptf("unknown piece defined twice (%d and %d)", t.unkID, i)
			}
			t.unkID = int32(i)
		}
	}
	if t.unkID < 0 {
		return nil, corruptf("no unknown piece")
	}
	inTrie := func(i int) bool {
		switch vocab.entry[i].typ {
		case typeNormal, typeUserDefined, typeUnused:
			return true
		}
		return false
	}
	var err error
	if t.pieces, err = buildTrie(vocab.text, inTrie); err != nil {
		return nil, corruptf("%v", err)
	}
	if len(user) > 0 {
		if t.norm.user, err = buildTrie(user, nil); err != nil {
			return nil, corruptf("%v", err)
		}
	}
	for b := range t.byteIDs {
		t.byteIDs[b] = t.unkID
	}
	for i, e := range vocab.entry {
		if e.typ == typeByte {
			b, ok := parseBytePiece(vocab.text[i])
			if !ok {
				return nil, corruptf("byte piece %q is not <0xXX>", vocab.text[i])
			}
			t.byteIDs[b] = int32(i)
		}
	}
	t.minScore, t.maxScore = scoreRange(t.vocab)
	return t, nil
}

// parseBytePiece parses "<0xXX>" with upper-case hex, as ByteToPiece writes.
func parseBytePiece(s string) (byte, bool) {
	if len(s) != 6 || s[:3] != "<0x" || s[5] != '>' {
		return 0, false
	}
	hex := func(c byte) (byte, bool) {
		switch {
		case '0' <= c && c <= '9':
			return c - '0', true
		case 'A' <= c && c <= 'F':
			return c - 'A' + 10, true
		}
		return 0, false
	}
	hi, ok1 := hex(s[3])
	lo, ok2 := hex(s[4])
	return hi<<4 | lo, ok1 && ok2
}

// VocabSize returns the number of model ids, the row count of the
// embedding table (250002 for XLM-R and paraphrase-multilingual-MiniLM).
func (t *Tokenizer) VocabSize() int { return t.vocabSize }

// BOSID returns the model id of <s>, or -1 if the model has none.
func (t *Tokenizer) BOSID() int32 { return t.bos }

// EOSID returns the model id of </s>, or -1 if the model has none.
func (t *Tokenizer) EOSID() int32 { return t.eos }

// PadID returns the model id used for padding (<pad>, or 0 if the model
// defines none).
func (t *Tokenizer) PadID() int32 { return t.pad }

// Encode returns the native ids of text without special tokens: exactly
// what `spm_encode --output_format=id` prints for a .model file. Invalid
// UTF-8 is read as U+FFFD one byte at a time; Encode never fails.
func (t *Tokenizer) Encode(text string) []int {
	s := t.getScratch()
	s.ids = t.encode(s, s.ids[:0], text)
	out := make([]int, len(s.ids))
	for i, id := range s.ids {
		out[i] = int(id)
	}
	t.scratch.Put(s)
	return out
}

// EncodeForModel returns the model ids of text framed as <s> ... </s>, the
// input of an XLM-R style encoder, with at most maxLen ids: longer texts
// lose pieces from the end and keep the closing </s>. maxLen <= 0 means no
// limit; 128 is the limit of paraphrase-multilingual-MiniLM-L12-v2. The
// attention mask of the result is all ones (see [Tokenizer.Pad] for
// batches). It returns an error wrapping errs.ErrInvalid if maxLen is 1
// or the model has no <s> or </s>.
func (t *Tokenizer) EncodeForModel(text string, maxLen int) ([]int32, error) {
	if maxLen == 1 {
		return nil, fmt.Errorf("spm: maxLen 1 leaves no room for <s> and </s>: %w", errs.ErrInvalid)
	}
	if t.bos < 0 || t.eos < 0 {
		return nil, fmt.Errorf("spm: model has no <s> or </s>: %w", errs.ErrInvalid)
	}
	s := t.getScratch()
	defer t.scratch.Put(s)
	s.ids = t.encode(s, s.ids[:0], text)
	n := len(s.ids)
	if maxLen > 0 {
		n = min(n, maxLen-2)
	}
	out := make([]int32, 0, n+2)
	out = append(out, t.bos)
	for _, id := range s.ids[:n] {
		if t.toModel != nil {
			id = t.toModel[id]
		}
		out = append(out, id)
	}
	return append(out, t.eos), nil
}

// EncodeBatchForModel runs EncodeForModel on each text and pads the
// results with Pad: ids[i] and mask[i] have the length of the longest
// encoding, mask is 1 for real tokens and 0 for padding. Errors are those
// of EncodeForModel.
func (t *Tokenizer) EncodeBatchForModel(texts []string, maxLen int) (ids, mask [][]int32, err error) {
	seqs := make([][]int32, len(texts))
	for i, text := range texts {
		if seqs[i], err = t.EncodeForModel(text, maxLen); err != nil {
			return nil, nil, err
		}
	}
	ids, mask = t.Pad(seqs)
	return ids, mask, nil
}

// Pad pads sequences (from EncodeForModel) with PadID to the length of the
// longest one and returns them with attention masks: 1 for a real token, 0
// for padding. The input slices are not modified.
func (t *Tokenizer) Pad(seqs [][]int32) (ids, mask [][]int32) {
	width := 0
	for _, s := range seqs {
		width = max(width, len(s))
	}
	ids = make([][]int32, len(seqs))
	mask = make([][]int32, len(seqs))
	for i, s := range seqs {
		row := make([]int32, 2*width)
		ids[i], mask[i] = row[:width:width], row[width:]
		copy(ids[i], s)
		for j := range width {
			if j < len(s) {
				mask[i][j] = 1
			} else {
				ids[i][j] = t.pad
			}
		}
	}
	return ids, mask
}

func (t *Tokenizer) getScratch() *encodeScratch {
	if s, ok := t.scratch.Get().(*encodeScratch); ok {
		return s
	}
	return &encodeScratch{}
}

// encode normalises text, segments it and appends native ids to ids.
func (t *Tokenizer) encode(s *encodeScratch, ids []int32, text string) []int32 {
	s.norm = t.norm.normalize(s.norm[:0], text)
	ids, s.best = t.viterbi(ids, string(s.norm), s.best)
	// Drop very large buffers instead of pinning them in the pool.
	if cap(s.norm) > 1<<20 {
		s.norm = nil
	}
	if cap(s.best) > 1<<18 {
		s.best = nil
	}
	return ids
}

// maxTokenizerBytes bounds a tokenizer file (a multilingual tokenizer.json
// is about 17 MB); it is read only when it is a regular file (package
// safefile).
const maxTokenizerBytes = 256 << 20
