package retrieve_test

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"path/filepath"
	"slices"
	"testing"
	"time"

	"github.com/holomem/holomem"
	"github.com/holomem/holomem/internal/bench/synth"
	"github.com/holomem/holomem/retrieve"
	"github.com/holomem/holomem/sqlite"
	"github.com/holomem/holomem/text"
)

// slowStore makes every batch write wait a little, so that ImportBatches
// prepares the next batch while one is being written (the case where a
// batch declaring aliases must hold the next one back).
type slowStore struct{ *sqlite.Store }

func (s slowStore) PrepareFacts(fs []*holomem.Fact, known []*text.Extraction) (func(context.Context) ([]bool, error), error) {
	write, err := s.Store.PrepareFacts(fs, known)
	if err != nil {
		return nil, err
	}
	return func(ctx context.Context) ([]bool, error) {
		time.Sleep(5 * time.Millisecond)
		return write(ctx)
	}, nil
}

// importCorpus is synthetic facts with duplicates (in and across batches),
// keyed facts, and aliases declared by one batch and used by the next.
func importCorpus() []*holomem.Fact {
	var out []*holomem.Fact
	for i := range 90 {
		var f *holomem.Fact
		switch {
		case i%10 == 3:
			f = &holomem.Fact{Content: fmt.Sprintf("Person%d aka Nick%d runs the billing service", i, i)}
		case i%10 == 4:
			f = &holomem.Fact{Content: fmt.Sprintf("Nick%d moved the billing cron to Friday", i-1)}
		case i%10 == 6:
			f = &holomem.Fact{Content: "issue body", ExternalKey: fmt.Sprintf("github:o/r#%d", i%4)}
		case i%10 == 8:
			f = synth.Fact(5, i/3) // repeats an earlier fact now and then
		default:
			f = synth.Fact(5, i)
		}
		out = append(out, f)
	}
	return out
}

// importRows is what an import left: per input fact its id, whether it
// was new, its HRR vector and entities, then every stored row.
func importRows(t *testing.T, s holomem.Store, facts []*holomem.Fact, created []bool) []string {
	t.Helper()
	var out []string
	for i, f := range facts {
		out = append(out, fmt.Sprintf("in %d: id %d created %v entities %q hrr %x", i, f.ID, created[i], f.Entities, f.HRR))
	}
	stored, _, err := s.FindFacts(t.Context(), holomem.FactFilter{WithHRR: true, IncludeSuperseded: true})
	if err != nil {
		t.Fatal(err)
	}
	for _, f := range stored {
		out = append(out, fmt.Sprintf("row %d %q %q %q hrr %x", f.ID, f.Content, f.ExternalKey, f.Entities, f.HRR))
	}
	return out
}

func openStore(t *testing.T, name string) *sqlite.Store {
	t.Helper()
	s, err := sqlite.Open(t.Context(), filepath.Join(t.TempDir(), name))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { s.Close() })
	return s
}

// TestImportBatches_AsSequential: a pipelined import gives every fact the
// id, created flag, HRR vector and entities, and the store the rows, that
// Import batch after batch gives, with the aliases one batch declares
// used by the next.
func TestImportBatches_AsSequential(t *testing.T) {
	ctx := t.Context()
	const batch = 7

	seqStore := openStore(t, "seq.db")
	seq, err := retrieve.New(seqStore, retrieve.Options{})
	if err != nil {
		t.Fatal(err)
	}
	seqFacts := importCorpus()
	var seqCreated []bool
	for from := 0; from < len(seqFacts); from += batch {
		c, err := seq.Import(ctx, seqFacts[from:min(from+batch, len(seqFacts))])
		if err != nil {
			t.Fatal(err)
		}
		seqCreated = append(seqCreated, c...)
	}
	want := importRows(t, seqStore, seqFacts, seqCreated)

	pipeStore := openStore(t, "pipe.db")
	pipe, err := retrieve.New(slowStore{pipeStore}, retrieve.Options{})
	if err != nil {
		t.Fatal(err)
	}
	pipeFacts := importCorpus()
	var pipeCreated []bool
	var doneFacts []*holomem.Fact
	imp := pipe.ImportBatches(ctx, func(fs []*holomem.Fact, c []bool) {
		doneFacts = append(doneFacts, fs...)
		pipeCreated = append(pipeCreated, c...)
	})
	for from := 0; from < len(pipeFacts); from += batch {
		if err := imp.Add(pipeFacts[from:min(from+batch, len(pipeFacts))]); err != nil {
			t.Fatal(err)
		}
	}
	if err := imp.Wait(); err != nil {
		t.Fatal(err)
	}
	if len(doneFacts) != len(pipeFacts) || !slices.Equal(doneFacts, pipeFacts) {
		t.Fatalf("done got %d facts, want the %d added in order", len(doneFacts), len(pipeFacts))
	}
	got := importRows(t, pipeStore, pipeFacts, pipeCreated)
	if !slices.Equal(got, want) {
		for i := range min(len(got), len(want)) {
			if got[i] != want[i] {
				t.Fatalf("pipelined import differs at line %d:\n got %s\nwant %s", i, got[i], want[i])
			}
		}
		t.Fatalf("pipelined import has %d lines, want %d", len(got), len(want))
	}
	if !slices.Contains(seqCreated, false) || bytes.Count([]byte(fmt.Sprint(want)), []byte("aka")) == 0 {
		t.Fatal("the corpus no longer has duplicates or aliases")
	}
}

// TestImportBatches_Errors: an invalid fact or a done context ends the
// import with that error; batches added before it are stored, later Adds
// and Wait return the same error.
func TestImportBatches_Errors(t *testing.T) {
	tests := []struct {
		name    string
		second  []*holomem.Fact
		cancel  bool
		wantErr error
	}{
		{"invalid fact", []*holomem.Fact{{Content: "fine"}, {Content: ""}}, false, holomem.ErrInvalid},
		{"context done", []*holomem.Fact{{Content: "too late"}}, true, context.Canceled},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			ctx, cancel := context.WithCancel(t.Context())
			defer cancel()
			s := openStore(t, "e.db")
			m, err := retrieve.New(s, retrieve.Options{})
			if err != nil {
				t.Fatal(err)
			}
			stored := 0
			imp := m.ImportBatches(ctx, func(fs []*holomem.Fact, _ []bool) { stored += len(fs) })
			if err := imp.Add([]*holomem.Fact{{Content: "first batch one"}, {Content: "first batch two"}}); err != nil {
				t.Fatal(err)
			}
			if tt.cancel {
				if err := imp.Wait(); err != nil {
					t.Fatal(err)
				}
				imp = m.ImportBatches(ctx, nil)
				cancel()
			}
			err = imp.Add(tt.second)
			if !errors.Is(err, tt.wantErr) {
				t.Fatalf("Add = %v, want %v", err, tt.wantErr)
			}
			if again := imp.Add([]*holomem.Fact{{Content: "after the error"}}); !errors.Is(again, tt.wantErr) {
				t.Errorf("Add after the error = %v, want %v", again, tt.wantErr)
			}
			if werr := imp.Wait(); !errors.Is(werr, tt.wantErr) {
				t.Errorf("Wait = %v, want %v", werr, tt.wantErr)
			}
			if _, n, _ := s.FindFacts(t.Context(), holomem.FactFilter{}); n != 2 || stored != 2 {
				t.Errorf("stored %d facts (done saw %d), want the first batch's 2", n, stored)
			}
		})
	}
}

// failingStore fails the write of its second batch.
type failingStore struct {
	*sqlite.Store
	writes *int
}

var errWrite = errors.New("disk on fire")

func (s failingStore) PrepareFacts(fs []*holomem.Fact, known []*text.Extraction) (func(context.Context) ([]bool, error), error) {
	write, err := s.Store.PrepareFacts(fs, known)
	if err != nil {
		return nil, err
	}
	return func(ctx context.Context) ([]bool, error) {
		if *s.writes++; *s.writes == 2 {
			return nil, errWrite
		}
		return write(ctx)
	}, nil
}

// TestImportBatches_WriteError: a failed write ends the import with its
// error; the batches after it are not written, the one before is.
func TestImportBatches_WriteError(t *testing.T) {
	s := openStore(t, "w.db")
	writes := 0
	m, err := retrieve.New(failingStore{s, &writes}, retrieve.Options{})
	if err != nil {
		t.Fatal(err)
	}
	var done []string
	imp := m.ImportBatches(t.Context(), func(fs []*holomem.Fact, _ []bool) {
		for _, f := range fs {
			done = append(done, f.Content)
		}
	})
	var addErr error
	for i := range 4 {
		if addErr = imp.Add([]*holomem.Fact{{Content: fmt.Sprintf("batch %d", i)}}); addErr != nil {
			break
		}
	}
	if err := imp.Wait(); !errors.Is(err, errWrite) {
		t.Errorf("Wait = %v, want %v", err, errWrite)
	}
	if addErr != nil && !errors.Is(addErr, errWrite) {
		t.Errorf("Add = %v, want nil or %v", addErr, errWrite)
	}
	all, n, err := s.FindFacts(t.Context(), holomem.FactFilter{})
	if err != nil || n != 1 || all[0].Content != "batch 0" || !slices.Equal(done, []string{"batch 0"}) {
		t.Errorf("stored %d facts (%v), done saw %q; want only batch 0", n, err, done)
	}
}
