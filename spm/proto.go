package spm

import (
	"fmt"
	"math"

	"github.com/holomem/holomem/errs"
)

// pieceType is SentencePiece's ModelProto.SentencePiece.Type.
type pieceType uint8

// Piece types, numbered as in sentencepiece_model.proto.
const (
	typeNormal      pieceType = 1
	typeUnknown     pieceType = 2
	typeControl     pieceType = 3
	typeUserDefined pieceType = 4
	typeUnused      pieceType = 5
	typeByte        pieceType = 6
)

// modelTypeUnigram is TrainerSpec.ModelType UNIGRAM, the only one supported.
const modelTypeUnigram = 1

// piece is one vocabulary entry as parsed.
type piece struct {
	text  string
	score float32
	typ   pieceType
}

// pieceSet is a vocabulary in id order, kept as parallel slices so that
// entry can become the Tokenizer's table without a copy.
type pieceSet struct {
	text  []string
	entry []vocabEntry
}

func newPieceSet(n int) pieceSet {
	return pieceSet{text: make([]string, 0, n), entry: make([]vocabEntry, 0, n)}
}

func (ps *pieceSet) add(p piece) {
	ps.text = append(ps.text, p.text)
	ps.entry = append(ps.entry, vocabEntry{score: p.score, typ: p.typ})
}

func (ps *pieceSet) len() int { return len(ps.text) }

// modelProto holds the fields of a SentencePiece ModelProto that encoding
// needs. Defaults are those of sentencepiece_model.proto (proto2), which
// apply when a field is absent from the wire.
type modelProto struct {
	pieces pieceSet

	// TrainerSpec.
	modelType       int64
	unkID           int64
	bosID           int64
	eosID           int64
	padID           int64
	byteFallback    bool
	treatWSAsSuffix bool

	// NormalizerSpec.
	normName       string
	charsmap       string
	addDummyPrefix bool
	removeExtraWS  bool
	escapeWS       bool
}

// Wire types of the protobuf encoding.
const (
	wireVarint  = 0
	wireFixed64 = 1
	wireBytes   = 2
	wireStart   = 3
	wireEnd     = 4
	wireFixed32 = 5
)

// wire reads protobuf fields from a string without copying. Every method
// reports truncation and malformed data as an error; none panics.
type wire struct {
	s string
	i int
}

func (w *wire) done() bool { return w.i >= len(w.s) }

func (w *wire) varint() (uint64, error) {
	var v uint64
	for shift := uint(0); shift < 64; shift += 7 {
		if w.i >= len(w.s) {
			return 0, errTruncated
		}
		b := w.s[w.i]
		w.i++
		v |= uint64(b&0x7f) << shift
		if b < 0x80 {
			return v, nil
		}
	}
	return 0, corruptf("varint longer than 10 bytes")
}

// tag reads a field key and returns the field number and wire type.
func (w *wire) tag() (field uint64, typ int, err error) {
	k, err := w.varint()
	if err != nil {
		return 0, 0, err
	}
	field, typ = k>>3, int(k&7)
	if field == 0 {
		return 0, 0, corruptf("field number 0")
	}
	return field, typ, nil
}

// bytes reads a length-delimited value.
func (w *wire) bytes() (string, error) {
	n, err := w.varint()
	if err != nil {
		return "", err
	}
	if n > uint64(len(w.s)-w.i) {
		return "", errTruncated
	}
	v := w.s[w.i : w.i+int(n)]
	w.i += int(n)
	return v, nil
}

func (w *wire) fixed32() (uint32, error) {
	if len(w.s)-w.i < 4 {
		return 0, errTruncated
	}
	b := w.s[w.i : w.i+4]
	v := uint32(b[0]) | uint32(b[1])<<8 | uint32(b[2])<<16 | uint32(b[3])<<24
	w.i += 4
	return v, nil
}

// skip steps over a value of wire type typ that the decoder does not need.
func (w *wire) skip(typ int) error {
	switch typ {
	case wireVarint:
		_, err := w.varint()
		return err
	case wireFixed64:
		if len(w.s)-w.i < 8 {
			return errTruncated
		}
		w.i += 8
		return nil
	case wireBytes:
		_, err := w.bytes()
		return err
	case wireFixed32:
		_, err := w.fixed32()
		return err
	default:
		// Groups (3, 4) are deprecated and never written by SentencePiece.
		return corruptf("unsupported wire type %d", typ)
	}
}

// expect checks that a field has the wire type its schema gives it.
func expect(field uint64, got, want int) error {
	if got != want {
		return corruptf("field %d has wire type %d, want %d", field, got, want)
	}
	return nil
}

// parseModelProto decodes a serialized ModelProto. Unknown fields are
// skipped, as protobuf requires, so newer model files still load.
func parseModelProto(s string) (*modelProto, error) {
	m := &modelProto{
		modelType:      modelTypeUnigram,
		unkID:          0,
		bosID:          1,
		eosID:          2,
		padID:          -1,
		addDummyPrefix: true,
		removeExtraWS:  true,
		escapeWS:       true,
	}
	m.pieces = newPieceSet(countPieces(s))
	w := wire{s: s}
	for !w.done() {
		field, typ, err := w.tag()
		if err != nil {
			return nil, err
		}
		switch field {
		case 1: // pieces
			if err := expect(field, typ, wireBytes); err != nil {
				return nil, err
			}
			b, err := w.bytes()
			if err != nil {
				return nil, err
			}
			p, err := parsePiece(b)
			if err != nil {
				return nil, fmt.Errorf("piece %d: %w", m.pieces.len(), err)
			}
			m.pieces.add(p)
		case 2: // trainer_spec
			if err := expect(field, typ, wireBytes); err != nil {
				return nil, err
			}
			b, err := w.bytes()
			if err != nil {
				return nil, err
			}
			if err := m.parseTrainerSpec(b); err != nil {
				return nil, fmt.Errorf("trainer_spec: %w", err)
			}
		case 3: // normalizer_spec
			if err := expect(field, typ, wireBytes); err != nil {
				return nil, err
			}
			b, err := w.bytes()
			if err != nil {
				return nil, err
			}
			if err := m.parseNormalizerSpec(b); err != nil {
				return nil, fmt.Errorf("normalizer_spec: %w", err)
			}
		default: // self_test_data, denormalizer_spec, extensions
			if err := w.skip(typ); err != nil {
				return nil, err
			}
		}
	}
	return m, nil
}

// countPieces counts the top-level pieces fields so the slice is allocated
// once; a malformed message stops the count (parseModelProto reports it).
func countPieces(s string) int {
	w := wire{s: s}
	n := 0
	for !w.done() {
		field, typ, err := w.tag()
		if err != nil || w.skip(typ) != nil {
			break
		}
		if field == 1 {
			n++
		}
	}
	return n
}

func parsePiece(s string) (piece, error) {
	p := piece{typ: typeNormal}
	w := wire{s: s}
	for !w.done() {
		field, typ, err := w.tag()
		if err != nil {
			return p, err
		}
		switch field {
		case 1:
			if err := expect(field, typ, wireBytes); err != nil {
				return p, err
			}
			if p.text, err = w.bytes(); err != nil {
				return p, err
			}
		case 2:
			if err := expect(field, typ, wireFixed32); err != nil {
				return p, err
			}
			v, err := w.fixed32()
			if err != nil {
				return p, err
			}
			p.score = math.Float32frombits(v)
		case 3:
			if err := expect(field, typ, wireVarint); err != nil {
				return p, err
			}
			v, err := w.varint()
			if err != nil {
				return p, err
			}
			if v < uint64(typeNormal) || v > uint64(typeByte) {
				return p, corruptf("piece type %d", v)
			}
			p.typ = pieceType(v)
		default:
			if err := w.skip(typ); err != nil {
				return p, err
			}
		}
	}
	return p, nil
}

func (m *modelProto) parseTrainerSpec(s string) error {
	w := wire{s: s}
	for !w.done() {
		field, typ, err := w.tag()
		if err != nil {
			return err
		}
		var dst *int64
		var flag *bool
		switch field {
		case 3:
			dst = &m.modelType
		case 40:
			dst = &m.unkID
		case 41:
			dst = &m.bosID
		case 42:
			dst = &m.eosID
		case 43:
			dst = &m.padID
		case 24:
			flag = &m.treatWSAsSuffix
		case 35:
			flag = &m.byteFallback
		default:
			if err := w.skip(typ); err != nil {
				return err
			}
			continue
		}
		if err := expect(field, typ, wireVarint); err != nil {
			return err
		}
		v, err := w.varint()
		if err != nil {
			return err
		}
		if dst != nil {
			*dst = int64(int32(v)) // int32 fields are sign-extended on the wire
		} else {
			*flag = v != 0
		}
	}
	return nil
}

func (m *modelProto) parseNormalizerSpec(s string) error {
	w := wire{s: s}
	for !w.done() {
		field, typ, err := w.tag()
		if err != nil {
			return err
		}
		switch field {
		case 1, 2:
			if err := expect(field, typ, wireBytes); err != nil {
				return err
			}
			b, err := w.bytes()
			if err != nil {
				return err
			}
			if field == 1 {
				m.normName = b
			} else {
				m.charsmap = b
			}
		case 3, 4, 5:
			if err := expect(field, typ, wireVarint); err != nil {
				return err
			}
			v, err := w.varint()
			if err != nil {
				return err
			}
			switch field {
			case 3:
				m.addDummyPrefix = v != 0
			case 4:
				m.removeExtraWS = v != 0
			case 5:
				m.escapeWS = v != 0
			}
		default:
			if err := w.skip(typ); err != nil {
				return err
			}
		}
	}
	return nil
}

// errTruncated reports input that ends inside a field.
var errTruncated = fmt.Errorf("spm: model data truncated: %w", errs.ErrInvalid)

// corruptf returns an error wrapping errs.ErrInvalid for a malformed model.
func corruptf(format string, args ...any) error {
	return fmt.Errorf("spm: corrupt model: %s: %w", fmt.Sprintf(format, args...), errs.ErrInvalid)
}
