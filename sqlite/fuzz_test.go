package sqlite

import (
	"context"
	"errors"
	"math"
	"path/filepath"
	"slices"
	"testing"
	"unicode/utf8"

	"github.com/holomem/holomem"
	"github.com/holomem/holomem/internal/leaf/rowcodec"
)

// FuzzSearchText checks that no query, however hostile to FTS5, gives an
// SQL error: it either finds facts with sane scores or returns ErrInvalid.
func FuzzSearchText(f *testing.F) {
	for _, q := range []string{`C++ (foo`, `"`, `-rf`, `NEAR(`, `title:x`, `AND`, `*`, `{content}:x`,
		`scope : "l64656661756c74"`, `l64656661756c74`, `"a" OR "b"`, "\x00", "ёлка", `^x`, `a:b:c`} {
		f.Add(q)
	}
	s, err := Open(context.Background(), filepath.Join(f.TempDir(), "fuzz.db"))
	if err != nil {
		f.Fatal(err)
	}
	f.Cleanup(func() { s.Close() })
	for _, c := range []string{"C++ templates (foo)", "rm -rf / on the server", "ёлка и Россия", "scope live facts"} {
		if _, err := s.CreateFact(context.Background(), &holomem.Fact{Content: c}); err != nil {
			f.Fatal(err)
		}
	}
	f.Fuzz(func(t *testing.T, q string) {
		ms, err := s.SearchText(context.Background(), "", q, 10)
		if err != nil {
			if !utf8.ValidString(q) || len(q) > holomem.MaxQueryBytes {
				if !errors.Is(err, holomem.ErrInvalid) {
					t.Fatalf("SearchText(%q) = %v, want ErrInvalid", q, err)
				}
				return
			}
			t.Fatalf("SearchText(%q): %v", q, err)
		}
		for _, m := range ms {
			if math.IsNaN(m.Score) || m.Score < 0 || m.Score > 1 {
				t.Fatalf("SearchText(%q) score %v", q, m.Score)
			}
		}
	})
}

// FuzzVector round-trips the embedding column's encoding.
func FuzzVector(f *testing.F) {
	f.Add([]byte{0, 0, 128, 63, 0, 0, 0, 0})
	f.Add([]byte{1, 2, 3})
	f.Fuzz(func(t *testing.T, b []byte) {
		v, err := rowcodec.DecodeVector(b)
		if len(b)%4 != 0 {
			if err == nil {
				t.Fatalf("rowcodec.DecodeVector(%d bytes) accepted a partial float", len(b))
			}
			return
		}
		if err != nil {
			t.Fatal(err)
		}
		if got := rowcodec.EncodeVector(v); !slices.Equal(got, b) {
			t.Fatalf("round trip %x -> %x", b, got)
		}
	})
}
