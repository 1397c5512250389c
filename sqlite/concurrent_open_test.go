package sqlite_test

import (
	"fmt"
	"path/filepath"
	"sync"
	"testing"

	"github.com/holomem/holomem/sqlite"
)

// TestOpen_ConcurrentFirstOpen: processes started together on a new file
// (a hook and serve on first use, the multi-process test's writers) all
// open it. Each brings the schema up to date while the others may be
// committing migrations; the identity check must read the schema version,
// application id and tables from one snapshot, or it sees a migration's
// tables without its application id and calls the file foreign.
func TestOpen_ConcurrentFirstOpen(t *testing.T) {
	rounds := 20
	if testing.Short() {
		rounds = 5
	}
	for r := range rounds {
		path := filepath.Join(t.TempDir(), fmt.Sprintf("first%d.db", r))
		var wg sync.WaitGroup
		errs := make(chan error, 6)
		for range cap(errs) {
			wg.Go(func() {
				s, err := sqlite.Open(t.Context(), path)
				if err == nil {
					err = s.Close()
				}
				errs <- err
			})
		}
		wg.Wait()
		close(errs)
		for err := range errs {
			if err != nil {
				t.Fatalf("round %d: %v", r, err)
			}
		}
	}
}
