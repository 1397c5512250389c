package sqlite

import (
	"database/sql"
	"path/filepath"
	"testing"

	"github.com/holomem/holomem"
)

// TestWithPageCache checks that the option reaches every connection (the
// writer and the read pool) and that the default is left to SQLite.
func TestWithPageCache(t *testing.T) {
	cacheSize := func(t *testing.T, db *sql.DB) int {
		t.Helper()
		var n int
		if err := db.QueryRowContext(t.Context(), "PRAGMA cache_size").Scan(&n); err != nil {
			t.Fatal(err)
		}
		return n
	}
	for _, tc := range []struct {
		name string
		opts []Option
		want int
	}{
		{"default", nil, -2000},
		{"pool", []Option{WithPageCache(32)}, 32},
		{"one connection", []Option{WithOneConnection(), WithPageCache(32)}, 32},
	} {
		t.Run(tc.name, func(t *testing.T) {
			s, err := Open(t.Context(), filepath.Join(t.TempDir(), "m.db"), tc.opts...)
			if err != nil {
				t.Fatal(err)
			}
			defer s.Close()
			if got := cacheSize(t, s.wdb); got != tc.want {
				t.Errorf("writer cache_size = %d, want %d", got, tc.want)
			}
			if got := cacheSize(t, s.rdb); got != tc.want {
				t.Errorf("reader cache_size = %d, want %d", got, tc.want)
			}
			// The store works with a cache smaller than what a search reads.
			for _, c := range []string{"alpha deploys the billing service", "beta deploys the search service"} {
				if _, err := s.CreateFact(t.Context(), &holomem.Fact{Content: c}); err != nil {
					t.Fatal(err)
				}
			}
			hits, err := s.SearchText(t.Context(), "default", "billing", 10)
			if err != nil || len(hits) != 1 {
				t.Fatalf("SearchText = %v, %v; want one hit", hits, err)
			}
		})
	}
}
