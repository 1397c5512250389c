package hrr

import (
	"encoding/binary"
	"errors"
	"fmt"
	"math"
	"strings"
)

// EncodingVersion is the first byte of every compact vector. Bump it when
// the layout or the phase quantisation changes; [Unmarshal] rejects others.
const EncodingVersion = 1

// EncodedLen is the length of a compact vector: the version byte and one
// byte per phase.
const EncodedLen = 1 + Dim

// ErrEncoding means bytes are not a compact vector of this version.
var ErrEncoding = errors.New("hrr: invalid compact vector")

// quantum is one step of an 8-bit phase in radians.
const quantum = twoPi / 256

// quantize maps a phase in radians to the nearest multiple of 2π/256.
func quantize(th float64) uint8 {
	return uint8(int64(math.Round(wrap(th)/quantum)) & 0xff)
}

// quantize16 maps a 16-bit phase to the nearest 8-bit phase.
func quantize16(p uint16) uint8 {
	return uint8((uint32(p) + 0x80) >> 8)
}

// Marshal returns the compact form of v: [EncodingVersion] followed by each
// phase rounded to 8 bits (steps of 2π/256). That is 1025 bytes instead of
// 8 KiB of float64 phases. Rounding moves each phase by at most π/256 and
// shifts a similarity by about 10^-4 on average and under 10^-3 at worst
// (measured by TestQuantization), far below the noise floor.
func Marshal(v Vector) []byte {
	assertDim(v)
	out := make([]byte, EncodedLen)
	out[0] = EncodingVersion
	for i, th := range v {
		out[1+i] = quantize(th)
	}
	return out
}

// Unmarshal decodes a compact vector. It returns an error wrapping
// [ErrEncoding] when the length or the version byte is wrong.
func Unmarshal(b []byte) (Vector, error) {
	if err := Check(b); err != nil {
		return nil, err
	}
	v := make(Vector, Dim)
	for i, q := range b[1:] {
		v[i] = float64(q) * quantum
	}
	return v, nil
}

// Check reports whether b is a compact vector of this version, with an
// error wrapping [ErrEncoding] when it is not.
func Check(b []byte) error {
	if len(b) != EncodedLen {
		return fmt.Errorf("%w: %d bytes, want %d", ErrEncoding, len(b), EncodedLen)
	}
	if b[0] != EncodingVersion {
		return fmt.Errorf("%w: version %d, want %d", ErrEncoding, b[0], EncodingVersion)
	}
	return nil
}

// lutScale is the fixed-point scale of cosLUT; Dim·lutScale fits in int32.
const lutScale = 1 << 14

// cosLUT[d] is round(cos(2π·d/256)·lutScale). Indexing it with a uint8 phase
// difference wraps mod 2π for free. Integer entries keep the sum exact and
// independent of summation order.
var cosLUT = func() (t [256]int32) {
	for d := range t {
		t[d] = int32(math.Round(math.Cos(float64(d)*quantum) * lutScale))
	}
	return t
}()

// Key is a probe or query vector prepared for scanning compact vectors: its
// phases quantised to 8 bits and packed into words. A Key is immutable after
// construction and safe for concurrent use.
type Key struct {
	w [Dim / 8]uint64 // 8 phases per word, little-endian
}

// NewKey prepares v for [Key.Score].
func NewKey(v Vector) *Key {
	assertDim(v)
	var q [Dim]byte
	for i, th := range v {
		q[i] = quantize(th)
	}
	return keyOf(&q)
}

// keyOf packs 8-bit phases.
func keyOf(q *[Dim]byte) *Key {
	k := new(Key)
	for i := range k.w {
		k.w[i] = binary.LittleEndian.Uint64(q[8*i:])
	}
	return k
}

// ProbeKey returns the key of Bind(Atom(entity), ROLE_ENTITY): scored
// against a fact's compact vector it measures how strongly the fact holds the
// entity (see [Probe]). The entity is lower-cased like in [EncodeFact].
func ProbeKey(entity string) *Key {
	a := atoms.get(strings.ToLower(entity))
	var q [Dim]byte
	for i := range q {
		q[i] = quantize16(a[i] + roleEntity[i])
	}
	return keyOf(&q)
}

// atomKey returns the key of a bare atom: what an unbound entity slot is
// cleaned up against.
func atomKey(token string) *Key {
	a := atoms.get(token)
	var q [Dim]byte
	for i := range q {
		q[i] = quantize16(a[i])
	}
	return keyOf(&q)
}

// Score returns the similarity (see [Similarity]) between the key and a
// compact vector, in [-1, 1], computed on the 8-bit phases with a 256-entry
// cosine table. It returns 0 for bytes that are not a compact vector of this
// version; use [Check] to tell that apart from a true 0.
func (k *Key) Score(compact []byte) float64 {
	if len(compact) != EncodedLen || compact[0] != EncodingVersion {
		return 0
	}
	return float64(k.sum(compact[1:EncodedLen])) / (Dim * lutScale)
}

// swarHigh has the top bit of every byte set.
const swarHigh = 0x8080808080808080

// sum adds cos(c[i] − k[i]) over the Dim phases of c, in lutScale units.
// The phase differences of 8 components are computed at once in one word:
// ((x | H) − (y &^ H)) ^ ((x ^ ^y) & H) subtracts byte-wise without borrows
// crossing bytes, which is subtraction mod 256 in each byte.
func (k *Key) sum(c []byte) int32 {
	c = c[:Dim]
	var s0, s1 int32
	for i, y := range &k.w {
		x := binary.LittleEndian.Uint64(c[8*i:])
		d := ((x | swarHigh) - (y &^ swarHigh)) ^ ((x ^ ^y) & swarHigh)
		s0 += cosLUT[uint8(d)] + cosLUT[uint8(d>>8)] + cosLUT[uint8(d>>16)] + cosLUT[uint8(d>>24)]
		s1 += cosLUT[uint8(d>>32)] + cosLUT[uint8(d>>40)] + cosLUT[uint8(d>>48)] + cosLUT[uint8(d>>56)]
	}
	return s0 + s1
}
