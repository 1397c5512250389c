package embed

import (
	"encoding/binary"
	"encoding/json"
	"fmt"
	"io"
	"math"
	"slices"
	"strings"

	"github.com/holomem/holomem/errs"
)

// maxHeaderSize bounds the JSON header of a safetensors file; real headers
// of sentence models are a few tens of kilobytes.
const maxHeaderSize = 64 << 20

// tensorInfo is one entry of a safetensors header. Begin and End are byte
// offsets from the start of the file (not of the data section).
type tensorInfo struct {
	Name       string
	DType      string
	Shape      []int
	Begin, End int64
}

// elemSize returns the bytes per element of the dtypes this package reads.
func elemSize(dtype string) int {
	switch dtype {
	case "F32":
		return 4
	case "F16", "BF16":
		return 2
	}
	return 0
}

// numel returns the element count of the tensor.
func (ti tensorInfo) numel() int {
	n := 1
	for _, d := range ti.Shape {
		n *= d
	}
	return n
}

// readSafetensorsHeader parses the header of a safetensors file of the given
// size and checks every entry: a known dtype, a shape whose size matches its
// byte range, and a range inside the file. It returns the entries by name.
func readSafetensorsHeader(r io.ReaderAt, size int64) (map[string]tensorInfo, error) {
	var lenBuf [8]byte
	if size < 8 {
		return nil, fmt.Errorf("%w: safetensors: file of %d bytes is too short", errs.ErrInvalid, size)
	}
	if _, err := r.ReadAt(lenBuf[:], 0); err != nil {
		return nil, fmt.Errorf("safetensors: read header length: %w", err)
	}
	hlen := binary.LittleEndian.Uint64(lenBuf[:])
	if hlen > maxHeaderSize || int64(hlen) > size-8 {
		return nil, fmt.Errorf("%w: safetensors: header length %d does not fit a file of %d bytes", errs.ErrInvalid, hlen, size)
	}
	hdr := make([]byte, hlen)
	if _, err := r.ReadAt(hdr, 8); err != nil {
		return nil, fmt.Errorf("safetensors: read header: %w", err)
	}
	return parseSafetensorsHeader(hdr, size)
}

// parseSafetensorsHeader decodes the JSON header hdr of a file of fileSize bytes.
func parseSafetensorsHeader(hdr []byte, fileSize int64) (map[string]tensorInfo, error) {
	var raw map[string]json.RawMessage
	if err := json.Unmarshal(hdr, &raw); err != nil {
		return nil, fmt.Errorf("%w: safetensors header: %v", errs.ErrInvalid, err)
	}
	dataStart := 8 + int64(len(hdr))
	dataLen := fileSize - dataStart
	out := make(map[string]tensorInfo, len(raw))
	for name, msg := range raw {
		if name == "__metadata__" {
			continue
		}
		var e struct {
			DType       string    `json:"dtype"`
			Shape       []int64   `json:"shape"`
			DataOffsets [2]uint64 `json:"data_offsets"`
		}
		if err := json.Unmarshal(msg, &e); err != nil {
			return nil, fmt.Errorf("%w: safetensors tensor %q: %v", errs.ErrInvalid, name, err)
		}
		begin, end := e.DataOffsets[0], e.DataOffsets[1]
		if begin > end || end > uint64(max(dataLen, 0)) {
			return nil, fmt.Errorf("%w: safetensors tensor %q: data offsets [%d, %d) outside the %d data bytes (truncated file?)", errs.ErrInvalid, name, begin, end, dataLen)
		}
		ti := tensorInfo{Name: name, DType: e.DType, Begin: dataStart + int64(begin), End: dataStart + int64(end)}
		n := uint64(1)
		for _, d := range e.Shape {
			if d < 0 || d > math.MaxInt32 {
				return nil, fmt.Errorf("%w: safetensors tensor %q: bad shape %v", errs.ErrInvalid, name, e.Shape)
			}
			n *= uint64(d)
			if n > math.MaxInt32*4 {
				return nil, fmt.Errorf("%w: safetensors tensor %q: shape %v too large", errs.ErrInvalid, name, e.Shape)
			}
			ti.Shape = append(ti.Shape, int(d))
		}
		// Unknown dtypes (I64 position_ids buffers, for example) are kept
		// with their size unchecked; using one as a weight is an error.
		if es := elemSize(e.DType); es > 0 && n*uint64(es) != end-begin {
			return nil, fmt.Errorf("%w: safetensors tensor %q: %s shape %v needs %d bytes, data offsets give %d", errs.ErrInvalid, name, e.DType, e.Shape, n*uint64(es), end-begin)
		}
		out[name] = ti
	}
	return out, nil
}

// canonicalName strips the prefixes Hugging Face checkpoints put before the
// encoder's own tensor names and maps the old gamma/beta LayerNorm names.
func canonicalName(name string) string {
	for _, p := range []string{"roberta.", "bert.", "xlm_roberta.", "model.", "0.auto_model.", "auto_model."} {
		name = strings.TrimPrefix(name, p)
	}
	if s, ok := strings.CutSuffix(name, ".gamma"); ok {
		name = s + ".weight"
	} else if s, ok := strings.CutSuffix(name, ".beta"); ok {
		name = s + ".bias"
	}
	return name
}

// canonicalTensors renames the header entries with canonicalName. Two
// entries with the same canonical name are an error.
func canonicalTensors(in map[string]tensorInfo) (map[string]tensorInfo, error) {
	out := make(map[string]tensorInfo, len(in))
	names := make([]string, 0, len(in))
	for n := range in {
		names = append(names, n)
	}
	slices.Sort(names)
	for _, n := range names {
		c := canonicalName(n)
		if prev, dup := out[c]; dup {
			return nil, fmt.Errorf("%w: safetensors: tensors %q and %q both name %q", errs.ErrInvalid, prev.Name, n, c)
		}
		out[c] = in[n]
	}
	return out, nil
}

// decodeF32 converts little-endian raw data of dtype into dst.
func decodeF32(dst []float32, raw []byte, dtype string) {
	switch dtype {
	case "F32":
		for i := range dst {
			dst[i] = math.Float32frombits(binary.LittleEndian.Uint32(raw[4*i:]))
		}
	case "BF16":
		for i := range dst {
			dst[i] = math.Float32frombits(uint32(binary.LittleEndian.Uint16(raw[2*i:])) << 16)
		}
	case "F16":
		for i := range dst {
			dst[i] = f16ToF32(binary.LittleEndian.Uint16(raw[2*i:]))
		}
	}
}

// f16ToF32 converts an IEEE 754 half-precision value.
func f16ToF32(h uint16) float32 {
	sign := uint32(h>>15) << 31
	exp := uint32(h>>10) & 0x1f
	mant := uint32(h) & 0x3ff
	switch {
	case exp == 0 && mant == 0:
		return math.Float32frombits(sign)
	case exp == 0: // subnormal
		f := float32(mant) / 1024 / 16384
		if sign != 0 {
			f = -f
		}
		return f
	case exp == 0x1f:
		return math.Float32frombits(sign | 0xff<<23 | mant<<13)
	}
	return math.Float32frombits(sign | (exp+127-15)<<23 | mant<<13)
}

// f32ToF16 converts to half precision with round-to-nearest-even; only the
// generator and tests use it.
func f32ToF16(f float32) uint16 {
	b := math.Float32bits(f)
	sign := uint16(b>>16) & 0x8000
	exp := int32(b>>23&0xff) - 127 + 15
	mant := b & 0x7fffff
	switch {
	case b&0x7fffffff == 0:
		return sign
	case int32(b>>23&0xff) == 0xff:
		if mant != 0 {
			return sign | 0x7e00
		}
		return sign | 0x7c00
	case exp >= 0x1f:
		return sign | 0x7c00
	case exp <= 0:
		if exp < -10 {
			return sign
		}
		mant |= 0x800000
		shift := uint32(14 - exp)
		half := mant >> shift
		rem := mant & (1<<shift - 1)
		mid := uint32(1) << (shift - 1)
		if rem > mid || rem == mid && half&1 == 1 {
			half++
		}
		return sign | uint16(half)
	}
	half := uint32(exp)<<10 | mant>>13
	rem := mant & 0x1fff
	if rem > 0x1000 || rem == 0x1000 && half&1 == 1 {
		half++
	}
	return sign | uint16(half)
}
