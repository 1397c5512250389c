package vec

import (
	"encoding/binary"
	"fmt"
	"math"
)

// EncodingVersion is the first byte of every encoded vector. Bump it when the
// layout changes and keep decoding the old versions.
const EncodingVersion = 1

// MaxEncodedDim bounds the dimension Unmarshal accepts, so a corrupt header
// cannot ask for a huge allocation.
const MaxEncodedDim = 1 << 16

// headerSize is the version byte plus the uint32 dimension.
const headerSize = 5

// Marshal encodes v as: version byte, uint32 little-endian dimension, then
// each element as a little-endian IEEE 754 float32. The bits are kept
// exactly, so Unmarshal(Marshal(v)) equals v bit for bit.
func Marshal(v []float32) []byte {
	return AppendMarshal(make([]byte, 0, headerSize+4*len(v)), v)
}

// AppendMarshal appends the encoding of v (see [Marshal]) to b.
func AppendMarshal(b []byte, v []float32) []byte {
	b = append(b, EncodingVersion)
	b = binary.LittleEndian.AppendUint32(b, uint32(len(v)))
	for _, x := range v {
		b = binary.LittleEndian.AppendUint32(b, math.Float32bits(x))
	}
	return b
}

// Unmarshal decodes bytes written by [Marshal]. It returns an error wrapping
// [ErrCorrupt] for an unknown version, a dimension above [MaxEncodedDim] or a
// length that does not match the header.
func Unmarshal(b []byte) ([]float32, error) {
	if len(b) < headerSize {
		return nil, fmt.Errorf("%w: %d bytes, need at least %d", ErrCorrupt, len(b), headerSize)
	}
	if b[0] != EncodingVersion {
		return nil, fmt.Errorf("%w: unknown version %d", ErrCorrupt, b[0])
	}
	dim := binary.LittleEndian.Uint32(b[1:])
	if dim > MaxEncodedDim {
		return nil, fmt.Errorf("%w: dimension %d over %d", ErrCorrupt, dim, MaxEncodedDim)
	}
	if want := headerSize + 4*int(dim); len(b) != want {
		return nil, fmt.Errorf("%w: %d bytes for dimension %d, want %d", ErrCorrupt, len(b), dim, want)
	}
	v := make([]float32, dim)
	for i := range v {
		v[i] = math.Float32frombits(binary.LittleEndian.Uint32(b[headerSize+4*i:]))
	}
	return v, nil
}
