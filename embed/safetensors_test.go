package embed

import (
	"bytes"
	"encoding/binary"
	"encoding/json"
	"errors"
	"math"
	"os"
	"path/filepath"
	"testing"

	"github.com/holomem/holomem"
)

func safetensorsFile(header string, data int) []byte {
	var b bytes.Buffer
	binary.Write(&b, binary.LittleEndian, uint64(len(header)))
	b.WriteString(header)
	b.Write(make([]byte, data))
	return b.Bytes()
}

func TestReadSafetensorsHeader(t *testing.T) {
	for _, tc := range []struct {
		name   string
		file   []byte
		wantOK bool
	}{
		{"OK", safetensorsFile(`{"a":{"dtype":"F32","shape":[2,3],"data_offsets":[0,24]},"__metadata__":{"format":"pt"}}`, 24), true},
		{"OKF16", safetensorsFile(`{"a":{"dtype":"F16","shape":[4],"data_offsets":[0,8]}}`, 8), true},
		{"OKUnknownDType", safetensorsFile(`{"ids":{"dtype":"I64","shape":[3],"data_offsets":[0,24]}}`, 24), true},
		{"ErrShort", []byte{1, 2, 3}, false},
		{"ErrHeaderTooLong", safetensorsFile(`{}`, 0)[:9], false},
		{"ErrHugeHeaderLength", append([]byte{0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff}, `{}`...), false},
		{"ErrJSON", safetensorsFile(`{"a":`, 0), false},
		{"ErrNotObject", safetensorsFile(`[1,2]`, 0), false},
		{"ErrSizeMismatch", safetensorsFile(`{"a":{"dtype":"F32","shape":[2,3],"data_offsets":[0,20]}}`, 24), false},
		{"ErrPastEnd", safetensorsFile(`{"a":{"dtype":"F32","shape":[2,3],"data_offsets":[0,24]}}`, 23), false},
		{"ErrReversed", safetensorsFile(`{"a":{"dtype":"F32","shape":[0],"data_offsets":[8,0]}}`, 8), false},
		{"ErrNegativeDim", safetensorsFile(`{"a":{"dtype":"F32","shape":[-1],"data_offsets":[0,0]}}`, 0), false},
		{"ErrOverflowShape", safetensorsFile(`{"a":{"dtype":"F32","shape":[2147483647,2147483647,4],"data_offsets":[0,0]}}`, 0), false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := readSafetensorsHeader(bytes.NewReader(tc.file), int64(len(tc.file)))
			if tc.wantOK && err != nil {
				t.Fatal(err)
			}
			if !tc.wantOK && !errors.Is(err, holomem.ErrInvalid) {
				t.Fatalf("err = %v, want ErrInvalid", err)
			}
		})
	}
}

// FuzzReadSafetensorsHeader checks that no input panics and that accepted
// headers only describe ranges inside the file.
func FuzzReadSafetensorsHeader(f *testing.F) {
	f.Add(safetensorsFile(`{"a":{"dtype":"F32","shape":[2,3],"data_offsets":[0,24]}}`, 24))
	f.Add(safetensorsFile(`{"a":{"dtype":"BF16","shape":[1],"data_offsets":[0,2]},"b":{"dtype":"F16","shape":[],"data_offsets":[2,4]}}`, 4))
	f.Add(safetensorsFile(`{"__metadata__":{"x":"y"}}`, 0))
	f.Add([]byte("\x02\x00\x00\x00\x00\x00\x00\x00{}"))
	if data, err := os.ReadFile(filepath.Join("testdata", "tiny-bert", "model.safetensors")); err == nil {
		f.Add(data[:min(len(data), 4096)])
	}
	f.Fuzz(func(t *testing.T, file []byte) {
		ts, err := readSafetensorsHeader(bytes.NewReader(file), int64(len(file)))
		if err != nil {
			return
		}
		for name, ti := range ts {
			if ti.Begin < 8 || ti.End < ti.Begin || ti.End > int64(len(file)) {
				t.Fatalf("%s: range [%d, %d) outside a file of %d bytes", name, ti.Begin, ti.End, len(file))
			}
			if es := elemSize(ti.DType); es > 0 && int64(ti.numel()*es) != ti.End-ti.Begin {
				t.Fatalf("%s: %d elements in %d bytes", name, ti.numel(), ti.End-ti.Begin)
			}
		}
		if _, err := canonicalTensors(ts); err != nil && !errors.Is(err, holomem.ErrInvalid) {
			t.Fatal(err)
		}
	})
}

func TestF16(t *testing.T) {
	for _, f := range []float32{0, 1, -2.5, 65504, 6.1035156e-05, 5.9604645e-08, 0.1, 3.14159, -1e-3} {
		if got := f16ToF32(f32ToF16(f)); math.Abs(float64(got-f)) > math.Abs(float64(f))*1e-3+6e-8 {
			t.Errorf("f16 round trip of %g = %g", f, got)
		}
	}
	if got := f16ToF32(0x7c00); !math.IsInf(float64(got), 1) {
		t.Errorf("f16 0x7c00 = %g, want +Inf", got)
	}
	if got := f16ToF32(0x3c00); got != 1 {
		t.Errorf("f16 0x3c00 = %g, want 1", got)
	}
}

func TestErf32(t *testing.T) {
	worst := 0.0
	for x := -6.0; x <= 6.0; x += 1e-3 {
		worst = max(worst, math.Abs(float64(erf32(float32(x)))-math.Erf(x)))
	}
	if worst > 1e-6 {
		t.Fatalf("erf32 max error %g", worst)
	}
}

func TestCanonicalName(t *testing.T) {
	for _, tc := range []struct{ in, want string }{
		{"embeddings.word_embeddings.weight", "embeddings.word_embeddings.weight"},
		{"roberta.embeddings.word_embeddings.weight", "embeddings.word_embeddings.weight"},
		{"bert.encoder.layer.3.attention.self.query.weight", "encoder.layer.3.attention.self.query.weight"},
		{"bert.embeddings.LayerNorm.gamma", "embeddings.LayerNorm.weight"},
		{"bert.embeddings.LayerNorm.beta", "embeddings.LayerNorm.bias"},
	} {
		if got := canonicalName(tc.in); got != tc.want {
			t.Errorf("canonicalName(%q) = %q, want %q", tc.in, got, tc.want)
		}
	}
}

// rewriteSafetensors copies a safetensors file, renaming its tensors and
// converting F32 data to dtype.
func rewriteSafetensors(t *testing.T, from, to string, rename func(string) string, dtype string) {
	t.Helper()
	data, err := os.ReadFile(from)
	if err != nil {
		t.Fatal(err)
	}
	ts, err := readSafetensorsHeader(bytes.NewReader(data), int64(len(data)))
	if err != nil {
		t.Fatal(err)
	}
	hdr := map[string]any{}
	var body []byte
	for name, ti := range ts {
		raw := data[ti.Begin:ti.End]
		if dtype != "F32" {
			vals := make([]float32, ti.numel())
			decodeF32(vals, raw, "F32")
			raw = nil
			for _, v := range vals {
				switch dtype {
				case "F16":
					raw = binary.LittleEndian.AppendUint16(raw, f32ToF16(v))
				case "BF16":
					raw = binary.LittleEndian.AppendUint16(raw, uint16(math.Float32bits(v)>>16))
				}
			}
		}
		hdr[rename(name)] = map[string]any{"dtype": dtype, "shape": ti.Shape, "data_offsets": []int{len(body), len(body) + len(raw)}}
		body = append(body, raw...)
	}
	hb, _ := json.Marshal(hdr)
	out := binary.LittleEndian.AppendUint64(nil, uint64(len(hb)))
	out = append(append(out, hb...), body...)
	if err := os.WriteFile(to, out, 0o644); err != nil {
		t.Fatal(err)
	}
}

// TestLoad_Variants loads the tiny model with HF prefixes, with F16 and BF16
// weights and with an unaligned data section, and compares with the
// reference vectors.
func TestLoad_Variants(t *testing.T) {
	src := filepath.Join("testdata", "tiny")
	cfg, err := ReadConfig(src)
	if err != nil {
		t.Fatal(err)
	}
	seqs := [][]int32{{0, 17, 400, 999, 3, 2}, {0, 2}}
	base, err := loadModel(src, cfg, genericKernels, 1)
	if err != nil {
		t.Fatal(err)
	}
	want, err := base.forward(t.Context(), seqs)
	base.close()
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		name   string
		rename func(string) string
		dtype  string
		minCos float64
	}{
		{"RobertaPrefix", func(s string) string { return "roberta." + s }, "F32", 0.999999},
		{"UnalignedUnsorted", func(s string) string { return s + "" }, "F32", 0.999999},
		{"F16", func(s string) string { return s }, "F16", 0.999},
		{"BF16", func(s string) string { return "bert." + s }, "BF16", 0.99},
	} {
		t.Run(tc.name, func(t *testing.T) {
			dir := t.TempDir()
			rewriteSafetensors(t, filepath.Join(src, "model.safetensors"), filepath.Join(dir, "model.safetensors"), tc.rename, tc.dtype)
			m, err := loadModel(dir, cfg, defaultKernels(), 1)
			if err != nil {
				t.Fatal(err)
			}
			defer m.close()
			got, err := m.forward(t.Context(), seqs)
			if err != nil {
				t.Fatal(err)
			}
			for i := range got {
				var dot float64
				for d := range got[i] {
					dot += float64(got[i][d]) * float64(want[i][d])
				}
				if dot < tc.minCos {
					t.Errorf("seq %d: cosine %.7f < %g", i, dot, tc.minCos)
				}
			}
		})
	}
}
