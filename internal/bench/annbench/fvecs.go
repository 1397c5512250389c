package annbench

import (
	"bufio"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"math"
)

// ErrFormat means an .fvecs stream is malformed.
var ErrFormat = errors.New("annbench: bad fvecs data")

// MaxFvecsDim bounds the dimension ReadFvecs accepts, so a corrupt header
// cannot ask for a huge allocation.
const MaxFvecsDim = 1 << 16

// ReadFvecs reads vectors in the .fvecs format of the standard ANN benchmark
// sets (TEXMEX, ann-benchmarks): each vector is a little-endian int32
// dimension followed by that many little-endian float32s. All vectors must
// share one dimension. limit > 0 stops after that many vectors. Errors wrap
// [ErrFormat] (or the reader's error).
func ReadFvecs(r io.Reader, limit int) ([][]float32, error) {
	br := bufio.NewReaderSize(r, 1<<16)
	var out [][]float32
	var hdr [4]byte
	dim := -1
	var buf []byte
	for limit <= 0 || len(out) < limit {
		if _, err := io.ReadFull(br, hdr[:]); err != nil {
			if err == io.EOF {
				break
			}
			return nil, fmt.Errorf("vector %d header: %w: %w", len(out), ErrFormat, err)
		}
		d := int32(binary.LittleEndian.Uint32(hdr[:]))
		if d <= 0 || d > MaxFvecsDim {
			return nil, fmt.Errorf("vector %d: %w: dimension %d", len(out), ErrFormat, d)
		}
		if dim < 0 {
			dim = int(d)
			buf = make([]byte, 4*dim)
		} else if int(d) != dim {
			return nil, fmt.Errorf("vector %d: %w: dimension %d, earlier %d", len(out), ErrFormat, d, dim)
		}
		if _, err := io.ReadFull(br, buf); err != nil {
			return nil, fmt.Errorf("vector %d: %w: %w", len(out), ErrFormat, err)
		}
		v := make([]float32, dim)
		for i := range v {
			v[i] = math.Float32frombits(binary.LittleEndian.Uint32(buf[4*i:]))
		}
		out = append(out, v)
	}
	return out, nil
}

// WriteFvecs writes vecs in the .fvecs format read by [ReadFvecs]. Vectors
// must be non-empty and share one dimension.
func WriteFvecs(w io.Writer, vecs [][]float32) error {
	bw := bufio.NewWriterSize(w, 1<<16)
	var b []byte
	for i, v := range vecs {
		if len(v) == 0 || len(v) > MaxFvecsDim || len(v) != len(vecs[0]) {
			return fmt.Errorf("vector %d: %w: dimension %d", i, ErrFormat, len(v))
		}
		b = binary.LittleEndian.AppendUint32(b[:0], uint32(len(v)))
		for _, x := range v {
			b = binary.LittleEndian.AppendUint32(b, math.Float32bits(x))
		}
		if _, err := bw.Write(b); err != nil {
			return fmt.Errorf("write fvecs: %w", err)
		}
	}
	if err := bw.Flush(); err != nil {
		return fmt.Errorf("write fvecs: %w", err)
	}
	return nil
}
