// Package rowcodec holds the row encodings both stores share (SQLite and
// PostgreSQL): the content-hash key, the tags column, float32 vectors and
// the checks a fact passes before it is written. Keeping them in one place
// keeps the two backends' rows byte-for-byte the same, which `holomem copy`
// and the conformance suite rely on.
package rowcodec

import (
	"crypto/sha256"
	"encoding/binary"
	"fmt"
	"math"
	"strings"
	"time"
	"unicode"

	"github.com/holomem/holomem"
	"github.com/holomem/holomem/internal/leaf/percentile"
)

// ContentHash is the first 8 bytes of SHA-256(content) as a signed
// integer: a compact unique key per namespace. A hit is confirmed by
// comparing the content itself.
func ContentHash(s string) int64 {
	sum := sha256.Sum256([]byte(s))
	return int64(binary.BigEndian.Uint64(sum[:8]))
}

// StoreTags normalises tags the way the tags column needs them: holomem's
// rules ([holomem.NormalizeTags]) and then inner whitespace runs replaced by
// '-', because the column is space-separated ("good first issue" becomes
// "good-first-issue").
func StoreTags(tags []string) []string {
	tags = holomem.NormalizeTags(tags)
	out := tags[:0]
	seen := make(map[string]bool, len(tags))
	for _, t := range tags {
		if strings.ContainsFunc(t, unicode.IsSpace) {
			t = strings.Join(strings.Fields(t), "-")
		}
		if !seen[t] {
			seen[t] = true
			out = append(out, t)
		}
	}
	if len(out) == 0 {
		return nil
	}
	return out
}

// JoinTags is the tags column's value for tags already passed through StoreTags.
func JoinTags(tags []string) string { return strings.Join(tags, " ") }

// SplitTags reads the tags column.
func SplitTags(s string) []string {
	if s == "" {
		return nil
	}
	return strings.Split(s, " ")
}

// NullString maps "" to SQL NULL.
func NullString(s string) any {
	if s == "" {
		return nil
	}
	return s
}

// PrepareFact normalises and validates f for storage.
func PrepareFact(f *holomem.Fact) error {
	if f == nil {
		return fmt.Errorf("%w: nil fact", holomem.ErrInvalid)
	}
	f.Normalize()
	f.Tags = StoreTags(f.Tags)
	if err := f.Validate(); err != nil {
		return err
	}
	if f.RetrievalCount < 0 || f.HelpfulCount < 0 || f.UnhelpfulCount < 0 {
		return fmt.Errorf("%w: negative counters", holomem.ErrInvalid)
	}
	if len(f.Embedding) > 0 {
		if err := CheckVector(f.Embedding); err != nil {
			return err
		}
	}
	return nil
}

// EncodeVector writes v as little-endian float32s, the embedding column's format.
func EncodeVector(v []float32) []byte {
	b := make([]byte, 4*len(v))
	for i, x := range v {
		binary.LittleEndian.PutUint32(b[4*i:], math.Float32bits(x))
	}
	return b
}

// DecodeVector reads the embedding column's format.
func DecodeVector(b []byte) ([]float32, error) {
	if len(b)%4 != 0 {
		return nil, fmt.Errorf("embedding blob of %d bytes is not a float32 vector", len(b))
	}
	v := make([]float32, len(b)/4)
	DecodeInto(v, b)
	return v, nil
}

// DecodeInto decodes b into v, which must hold len(b)/4 values.
func DecodeInto(v []float32, b []byte) {
	for i := range v {
		v[i] = math.Float32frombits(binary.LittleEndian.Uint32(b[4*i:]))
	}
}

// CheckVector rejects vectors that would poison cosine scores.
func CheckVector(v []float32) error {
	for i, x := range v {
		if math.IsNaN(float64(x)) || math.IsInf(float64(x), 0) {
			return fmt.Errorf("%w: embedding value %d is %v", holomem.ErrInvalid, i, x)
		}
	}
	return nil
}

// SetInjectionPercentiles sets st's P50 and P99 from the hook runs'
// durations by nearest rank, sorting took in place.
func SetInjectionPercentiles(st *holomem.InjectionStats, took []time.Duration) {
	if len(took) == 0 {
		return
	}
	st.P50, st.P99 = percentile.P50P99(took)
}

// Truncate cuts s to at most n bytes without splitting a UTF-8 sequence.
func Truncate(s string, n int) string {
	if len(s) <= n {
		return s
	}
	for n > 0 && s[n]&0xC0 == 0x80 {
		n--
	}
	return s[:n]
}
