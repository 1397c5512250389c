package backup

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"math"
	"os"
	"slices"

	"github.com/holomem/holomem/hrr"
	"github.com/holomem/holomem/index"
	"github.com/holomem/holomem/retrieve"
	"github.com/holomem/holomem/sqlite"
)

// Verification is what [Verify] found in a file.
type Verification struct {
	File     string   `json:"file"`
	OK       bool     `json:"ok"`
	Schema   int      `json:"schema_version"`
	Facts    int      `json:"facts"`
	Edges    int      `json:"edges"`
	Hashes   int      `json:"hashes_checked"`
	HRR      int      `json:"hrr_checked"`
	Derived  int      `json:"hrr_rederived,omitempty"`
	Vectors  int      `json:"vectors_checked"`
	Graphs   int      `json:"graphs_checked"`
	Problems []string `json:"problems,omitempty"`
	Notes    []string `json:"notes,omitempty"`
}

func (v *Verification) bad(format string, args ...any) {
	v.Problems = append(v.Problems, fmt.Sprintf(format, args...))
}

func (v *Verification) note(format string, args ...any) {
	v.Notes = append(v.Notes, fmt.Sprintf(format, args...))
}

// maxListed bounds the damaged facts and edges a report lists one by
// one; the rest are counted.
const maxListed = 20

// Verify opens file read-only and checks everything it holds; it never
// fails, it reports. It never writes to the file: with no write-ahead log
// beside it the file is opened immutable (SQLite then ignores a journal,
// which is reported instead of rolled back). deep also re-derives every
// fact's HRR vector and the full-text index from the facts and compares.
func Verify(ctx context.Context, file string, deep bool) *Verification {
	v := &Verification{File: file}
	defer func() { v.OK = len(v.Problems) == 0 }()
	immutable, ok := v.checkFile(file)
	if !ok {
		return v
	}
	s, err := sqlite.OpenForCheck(ctx, file, immutable)
	if err != nil {
		v.bad("cannot open: %v", err)
		return v
	}
	defer s.Close()
	if !v.checkSchema(ctx, s) {
		return v
	}
	v.checkFacts(ctx, s, deep)
	v.checkEdges(ctx, s)
	st, err := s.Stats(ctx, "")
	if err != nil {
		if v.Schema < sqlite.LatestSchema {
			v.note("statistics, vector and graph checks skipped on schema %d: %v", v.Schema, err)
			return v
		}
		v.bad("stats: %v", err)
		return v
	}
	v.Facts = st.Facts
	for _, n := range st.Edges {
		v.Edges += n
	}
	nss := make([]string, 0, len(st.Namespaces))
	for ns := range st.Namespaces {
		nss = append(nss, ns)
	}
	slices.Sort(nss)
	v.checkHRR(ctx, s, nss, st.Facts-st.WithoutHRR)
	for model, n := range st.Models {
		v.checkEmbeddings(ctx, s, nss, model, n)
	}
	v.checkGraphs(ctx, s)
	return v
}

// checkFile checks what can be seen without opening the database: the
// file itself, a hot journal and the write-ahead log. It says whether the
// file must be opened immutable and whether checking can go on.
func (v *Verification) checkFile(file string) (immutable, ok bool) {
	fi, err := os.Stat(file)
	switch {
	case err != nil:
		v.bad("cannot open: %v", err)
		return false, false
	case !fi.Mode().IsRegular():
		v.bad("%s is not a regular file", file)
		return false, false
	case fi.Size() == 0:
		v.bad("the file is empty (0 bytes): not a database (a copy that never started writing?)")
		return false, false
	}
	immutable = true
	if hot, size := HotJournal(file); hot {
		v.bad("a hot journal %s-journal (%d bytes) is beside the file: whatever wrote it (a backup or copy) was stopped mid-write, so the file may be incomplete; verify left it alone (opening the file with holomem would roll the journal back); use another backup, or run the backup again",
			file, size)
	} else if _, err := os.Stat(file + "-wal"); err == nil {
		// Read the log as a reader would: a live store (serve) keeps one,
		// empty right after a checkpoint, and writes on meanwhile.
		immutable = false
	}
	if n, err := sqlite.WALCheck(file); err != nil || n != "" {
		v.bad("%s%v; compare the facts with the last backup (holomem restore brings it back)", n, errText(err))
		if !immutable {
			// Reading the log would rebuild its index (-shm), the
			// evidence of what was committed, which the next open
			// records for doctor: check the file without the log.
			immutable = true
			v.note("the checks below read the database file without its damaged write-ahead log")
		}
	}
	return immutable, true
}

// checkSchema reads the schema version and checks the pages; false when
// the file holds no holomem schema to check further.
func (v *Verification) checkSchema(ctx context.Context, s *sqlite.Store) bool {
	var err error
	if v.Schema, err = s.SchemaVersion(ctx); err != nil {
		v.bad("read schema version: %v", err)
		return false
	}
	pp, err := s.CheckPages(ctx)
	for _, p := range pp {
		v.bad("%s", p)
	}
	if err != nil {
		v.bad("%v", err)
	}
	switch {
	case v.Schema == 0:
		v.bad("no holomem schema: an empty SQLite database")
		return false
	case v.Schema < sqlite.LatestSchema:
		v.note("schema %d is older than this holomem's %d: `holomem restore` (or opening the file with holomem) upgrades it; verify leaves it as it is and checks what it can",
			v.Schema, sqlite.LatestSchema)
	}
	if n, err := s.WALNotice(ctx); err != nil || n != "" {
		v.bad("%s%v; compare the facts with the last backup (holomem restore brings it back), then run `holomem verify --clear-wal-notice`", n, errText(err))
	}
	return true
}

// checkFacts checks every fact's content hash and fields, and with deep
// its HRR vector against its content and the full-text index against the
// facts.
func (v *Verification) checkFacts(ctx context.Context, s *sqlite.Store, deep bool) {
	var each func(sqlite.CheckRow)
	if deep {
		aliases := map[string]map[string]string{}
		each = func(r sqlite.CheckRow) {
			if r.HRR == nil {
				return
			}
			am, ok := aliases[r.Namespace]
			if !ok {
				am, _ = s.EntityAliases(ctx, r.Namespace)
				aliases[r.Namespace] = am
			}
			v.Derived++
			if want := retrieve.DeriveHRR(r.Content, am); !bytes.Equal(want, r.HRR) && !bytes.Equal(retrieve.DeriveHRR(r.Content, nil), r.HRR) {
				v.bad("fact %d: its HRR vector is not the one its content encodes to (a changed byte on disk)", r.ID)
			}
		}
	}
	damaged := 0
	var err error
	v.Hashes, err = s.CheckContentHashes(ctx, func(id int64, err error) {
		if damaged++; damaged <= maxListed {
			v.bad("fact %d: %v", id, err)
		}
	}, each)
	if err != nil {
		v.bad("%v", err)
	}
	if damaged > maxListed {
		v.bad("%d more damaged facts", damaged-maxListed)
	}
	if !deep {
		return
	}
	switch p, ok, err := s.CheckFTSDeep(ctx); {
	case err != nil:
		v.bad("%v", err)
	case !ok:
		v.note("the full-text index was built by another version of holomem (the next open rebuilds it): not compared")
	case p != "":
		v.bad("%s", p)
	}
}

// checkEdges checks every edge's fields.
func (v *Verification) checkEdges(ctx context.Context, s *sqlite.Store) {
	damaged := 0
	if _, err := s.CheckEdges(ctx, func(src, dst int64, err error) {
		if damaged++; damaged <= maxListed {
			v.bad("edge %d -> %d: %v", src, dst, err)
		}
	}); err != nil {
		v.bad("%v", err)
	}
	if damaged > maxListed {
		v.bad("%d more damaged edges", damaged-maxListed)
	}
}

// checkHRR decodes every HRR vector of the namespaces and compares their
// number with the counts (want).
func (v *Verification) checkHRR(ctx context.Context, s *sqlite.Store, nss []string, want int) {
	for _, ns := range nss {
		err := s.ScanHRR(ctx, ns, true, func(id int64, vec []byte) error {
			v.HRR++
			if err := hrr.Check(vec); err != nil {
				v.bad("fact %d: HRR vector: %v", id, err)
			}
			return nil
		})
		if err != nil {
			v.bad("scan HRR vectors of %s: %v", ns, err)
		}
	}
	if v.HRR != want {
		v.bad("%d HRR vectors read, the counts say %d", v.HRR, want)
	}
}

// checkEmbeddings decodes every embedding of one model: one dimension,
// finite numbers, as many as the counts say (want).
func (v *Verification) checkEmbeddings(ctx context.Context, s *sqlite.Store, nss []string, model string, want int) {
	seen, dim := 0, -1
	for _, ns := range nss {
		err := s.ScanEmbeddings(ctx, ns, model, func(id int64, vec []float32) error {
			seen++
			if dim < 0 {
				dim = len(vec)
			}
			if len(vec) == 0 || len(vec) != dim {
				v.bad("fact %d: %s vector has %d dimensions (others %d)", id, model, len(vec), dim)
			}
			for _, x := range vec {
				if math.IsNaN(float64(x)) || math.IsInf(float64(x), 0) {
					v.bad("fact %d: %s vector holds %v", id, model, x)
					break
				}
			}
			return nil
		})
		if err != nil {
			v.bad("scan %s vectors of %s: %v", model, ns, err)
		}
	}
	v.Vectors += seen
	if seen < want {
		v.bad("%d %s vectors read, the counts say %d", seen, model, want)
	}
}

// checkGraphs decodes each stored HNSW graph as a load would read it.
func (v *Verification) checkGraphs(ctx context.Context, s *sqlite.Store) {
	graphs, err := index.VerifyGraphs(ctx, s)
	if err != nil {
		v.bad("%v", err)
	}
	for _, g := range graphs {
		v.Graphs++
		if g.Problem != "" {
			v.bad("HNSW graph of namespace %s: %s; run `holomem graph build`", g.Namespace, g.Problem)
		}
	}
}

// HotJournal reports whether a rollback journal beside file would be
// rolled back by the next opening, and its size: it exists, is not empty
// and its header is not zeroed (a committed journal in PERSIST mode is
// zeroed).
func HotJournal(file string) (bool, int64) {
	f, err := os.Open(file + "-journal")
	if err != nil {
		return false, 0
	}
	defer f.Close()
	fi, err := f.Stat()
	if err != nil || !fi.Mode().IsRegular() || fi.Size() == 0 {
		return false, 0
	}
	hdr := make([]byte, 8)
	n, _ := io.ReadFull(f, hdr)
	for _, b := range hdr[:n] {
		if b != 0 {
			return true, fi.Size()
		}
	}
	return false, 0
}

// ClearWALNotice forgets a cut write-ahead log the store recorded when it
// was last opened (after a person compared the facts with a backup). It
// writes to file.
func ClearWALNotice(ctx context.Context, file string) error {
	s, err := sqlite.Open(ctx, file)
	if err != nil {
		return fmt.Errorf("verify: %w", err)
	}
	defer s.Close()
	return s.ClearWALNotice(ctx)
}

// errText is err's text, or nothing for nil.
func errText(err error) string {
	if err == nil {
		return ""
	}
	return err.Error()
}
