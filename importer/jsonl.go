package importer

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math"
	"strconv"
	"time"

	"github.com/holomem/holomem"
)

// JSONLVersion is the version of holomem's JSONL export format. The
// decoder reads every version up to this one and refuses newer ones.
//
// When adding fields to holomem.Fact or holomem.Edge, check that they
// survive [JSONLWriter] and [JSONL] (TestJSONL_RoundTrip).
const JSONLVersion = 1

// JSONLFormat names the format in the header line.
const JSONLFormat = "holomem-jsonl"

// jsonlLine is every field any line may have; Type says which apply.
//
//	{"type":"header","format":"holomem-jsonl","version":1,"exported_at":"..."}
//	{"type":"fact","id":7,"namespace":"default","content":"...",...holomem.Fact fields}
//	{"type":"edge","from":7,"to":9,"from_key":"github:o/r#1","to_key":"","kind":"causal",
//	 "weight":1,"origin":"import","created_at":"..."}
type jsonlHeader struct {
	Type       string    `json:"type"`
	Format     string    `json:"format"`
	Version    int       `json:"version"`
	ExportedAt time.Time `json:"exported_at"`
}

type jsonlFact struct {
	Type string `json:"type"`
	*holomem.Fact
}

type jsonlEdge struct {
	Type    string `json:"type"`
	FromKey string `json:"from_key,omitempty"`
	ToKey   string `json:"to_key,omitempty"`
	*holomem.Edge
}

// JSONLWriter writes holomem's JSONL export: a header line, then one line
// per fact and per edge. Write facts before the edges between them, so the
// writer can name each edge's ends by their external keys. It is not safe
// for concurrent use.
type JSONLWriter struct {
	w      *bufio.Writer
	header bool
	keys   map[int64]string // fact id -> external key, for edges

	// Now returns the export time for the header; nil means time.Now.
	Now func() time.Time
}

// NewJSONLWriter returns a writer to w. Call Flush when done.
func NewJSONLWriter(w io.Writer) *JSONLWriter {
	return &JSONLWriter{w: bufio.NewWriterSize(w, 64<<10), keys: map[int64]string{}}
}

func (w *JSONLWriter) writeHeader() error {
	w.header = true
	now := time.Now
	if w.Now != nil {
		now = w.Now
	}
	return w.line(jsonlHeader{Type: "header", Format: JSONLFormat, Version: JSONLVersion, ExportedAt: now().UTC()})
}

func (w *JSONLWriter) line(v any) error {
	if !w.header {
		if err := w.writeHeader(); err != nil {
			return err
		}
	}
	b, err := json.Marshal(v)
	if err != nil {
		return err
	}
	b = append(b, '\n')
	_, err = w.w.Write(b)
	return err
}

// WriteFact writes f with its id, all its fields and its embedding if
// loaded; the HRR vector is derived data and is not written.
func (w *JSONLWriter) WriteFact(f *holomem.Fact) error {
	if f.ExternalKey != "" {
		w.keys[f.ID] = f.ExternalKey
	}
	if err := w.line(jsonlFact{Type: "fact", Fact: f}); err != nil {
		return fmt.Errorf("write fact %d: %w", f.ID, err)
	}
	return nil
}

// WriteEdge writes e with the external keys of its ends when they were
// written with one.
func (w *JSONLWriter) WriteEdge(e *holomem.Edge) error {
	if err := w.line(jsonlEdge{Type: "edge", FromKey: w.keys[e.From], ToKey: w.keys[e.To], Edge: e}); err != nil {
		return fmt.Errorf("write edge %d -> %d: %w", e.From, e.To, err)
	}
	return nil
}

// Flush writes the header if nothing else was written and flushes the buffer.
func (w *JSONLWriter) Flush() error {
	if !w.header {
		if err := w.writeHeader(); err != nil {
			return err
		}
	}
	return w.w.Flush()
}

// idKey is the key of a fact with no external key, by its exported id.
func idKey(id int64) string { return "id:" + strconv.FormatInt(id, 10) }

// JSONL reads holomem's own export (see [JSONLWriter]). Each fact line
// becomes a Record whose Fact has ID zero, OldID the exported id and Key
// "id:<old id>" (an export may hold the same external key in several
// namespaces; its ids are unique). Edge lines become links-only Records,
// handed over after every fact, with both ends named by the Key of the fact
// that had that old id; an end that matches no fact of the file keeps the
// edge's from_key/to_key or "id:<n>". A fact superseded by another
// (superseded_by) gets a supersedes link too, in case the file lacks the
// edge; callers apply supersedes links with [holomem.Store.Supersede] and
// count a link that already exists as done.
//
// Lines that are not JSON, have an unknown type or fail validation are
// skipped with their line number. A header with a newer version than
// [JSONLVersion] stops the import with an error wrapping holomem.ErrInvalid.
func JSONL(r io.Reader, fn func(Record) error) (Summary, error) {
	var sum Summary
	br := bufio.NewReaderSize(r, 64<<10)
	keys := map[int64]string{}
	type pending struct {
		e    holomem.Edge
		from string
		to   string
	}
	var edges []pending
	var supers [][2]int64 // newer old id, older old id
	for line := 1; ; line++ {
		b, err := br.ReadBytes('\n')
		if len(bytes.TrimSpace(b)) > 0 {
			if stop := decodeJSONLLine(b, line, &sum, keys, func(rec Record, super int64) error {
				if super != 0 {
					supers = append(supers, [2]int64{super, rec.OldID})
				}
				return sum.emit(fn, rec)
			}, func(e holomem.Edge, from, to string) {
				edges = append(edges, pending{e, from, to})
			}); stop != nil {
				return sum, stop
			}
		}
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			return sum, fmt.Errorf("read jsonl line %d: %w", line, err)
		}
	}
	key := func(id int64, given string) string {
		if k, ok := keys[id]; ok {
			return k
		}
		return cmpOr(given, idKey(id))
	}
	for _, p := range edges {
		l := Link{
			FromKey: key(p.e.From, p.from), ToKey: key(p.e.To, p.to),
			Kind: p.e.Kind, Weight: p.e.Weight, Origin: p.e.Origin, CreatedAt: p.e.CreatedAt,
			Reason: ReasonExport,
		}
		if err := sum.emit(fn, Record{Links: []Link{l}}); err != nil {
			return sum, err
		}
	}
	for _, s := range supers {
		l := Link{
			FromKey: key(s[0], ""), ToKey: key(s[1], ""), Kind: holomem.EdgeSupersedes,
			Weight: 1, Origin: holomem.OriginImport, Reason: ReasonSupersededBy,
		}
		if err := sum.emit(fn, Record{Links: []Link{l}}); err != nil {
			return sum, err
		}
	}
	return sum, nil
}

// decodeJSONLLine handles one line: facts go to fact (with the old id of
// the fact superseding it, or 0), edges to edge. It returns an error only
// to stop the import.
func decodeJSONLLine(b []byte, line int, sum *Summary, keys map[int64]string,
	fact func(Record, int64) error, edge func(holomem.Edge, string, string)) error {
	var head struct {
		Type    string `json:"type"`
		Format  string `json:"format"`
		Version int    `json:"version"`
	}
	if err := json.Unmarshal(b, &head); err != nil {
		sum.skip("", line, "not a JSON object: %v", err)
		return nil
	}
	switch head.Type {
	case "header":
		if head.Format != JSONLFormat {
			sum.skip("", line, "header of format %q, want %q", head.Format, JSONLFormat)
		}
		if head.Version > JSONLVersion {
			return fmt.Errorf("%w: jsonl line %d: format version %d is newer than this holomem reads (%d): upgrade holomem", holomem.ErrInvalid, line, head.Version, JSONLVersion)
		}
		return nil
	case "fact":
		var f holomem.Fact
		if err := json.Unmarshal(b, &f); err != nil {
			sum.skip("", line, "decode fact: %v", err)
			return nil
		}
		// An empty list and no list mean the same; keep one form so a
		// fact round-trips unchanged.
		if len(f.Tags) == 0 {
			f.Tags = nil
		}
		if len(f.Entities) == 0 {
			f.Entities = nil
		}
		if len(f.Embedding) == 0 {
			f.Embedding = nil
		}
		if len(f.HRR) == 0 {
			f.HRR = nil
		}
		if err := f.Validate(); err != nil {
			sum.skip("", line, "fact %d: %v", f.ID, err)
			return nil
		}
		if f.ID <= 0 {
			sum.skip("", line, "fact has no id")
			return nil
		}
		if _, dup := keys[f.ID]; dup {
			sum.skip("", line, "fact %d appears twice", f.ID)
			return nil
		}
		// Old ids are unique in an export; external keys only per namespace.
		rec := Record{Key: idKey(f.ID), OldID: f.ID, Fact: &f}
		keys[f.ID] = rec.Key
		super := f.SupersededBy
		f.ID, f.SupersededBy, f.HRR = 0, 0, nil
		return fact(rec, super)
	case "edge":
		var e jsonlEdge
		e.Edge = new(holomem.Edge)
		if err := json.Unmarshal(b, &e); err != nil {
			sum.skip("", line, "decode edge: %v", err)
			return nil
		}
		if err := e.Edge.Validate(); err != nil {
			sum.skip("", line, "edge: %v", err)
			return nil
		}
		if math.IsInf(e.Weight, 0) {
			sum.skip("", line, "edge weight is infinite")
			return nil
		}
		edge(*e.Edge, e.FromKey, e.ToKey)
		return nil
	case "":
		sum.skip("", line, "line has no type")
	default:
		sum.skip("", line, "unknown line type %q", head.Type)
	}
	return nil
}
