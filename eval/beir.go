package eval

import (
	"bufio"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
)

// BEIRCategory is the category BEIR documents are stored under: they are
// documents (abstracts, passages, entries), and recall scores a fact by
// its category's kind (see retrieve's per-kind BM25).
const BEIRCategory = "doc"

type beirDoc struct {
	ID    string `json:"_id"`
	Title string `json:"title"`
	Text  string `json:"text"`
}

type beirQuery struct {
	ID   string `json:"_id"`
	Text string `json:"text"`
}

// ReadBEIR reads a data set in the BEIR layout: dir/corpus.jsonl (one
// {"_id", "title", "text"} per line), dir/queries.jsonl ({"_id", "text"})
// and dir/qrels/test.tsv (query-id, corpus-id, score; tab-separated, the
// header line optional). A document becomes one fact whose first line is
// its title (when it has one) and the rest its text, so every system reads
// the same words; its key is its _id. Relevance is binary: a judgement
// with score > 0 is gold. Only queries with at least one gold document are
// asked; the others are skipped, as BEIR's own evaluation does.
func ReadBEIR(dir string) (*Dataset, error) {
	d := &Dataset{Name: "beir:" + dir}
	docs := map[string]bool{}
	if err := readJSONLines("beir", filepath.Join(dir, "corpus.jsonl"), func(b []byte) error {
		var doc beirDoc
		if err := json.Unmarshal(b, &doc); err != nil {
			return err
		}
		if strings.TrimSpace(doc.ID) == "" {
			return errors.New(`document has no "_id"`)
		}
		if docs[doc.ID] {
			return fmt.Errorf("document %q appears twice", doc.ID)
		}
		docs[doc.ID] = true
		t := strings.TrimSpace(doc.Text)
		if title := strings.TrimSpace(doc.Title); title != "" {
			t = strings.TrimSpace(title + "\n" + t)
		}
		if t == "" {
			return nil // nothing to find; a judgement naming it is dropped below
		}
		d.Facts = append(d.Facts, Fact{Key: doc.ID, Text: t, Category: BEIRCategory})
		return nil
	}); err != nil {
		return nil, err
	}
	stored := make(map[string]bool, len(d.Facts))
	for _, f := range d.Facts {
		stored[f.Key] = true
	}
	var queries []beirQuery
	if err := readJSONLines("beir", filepath.Join(dir, "queries.jsonl"), func(b []byte) error {
		var q beirQuery
		if err := json.Unmarshal(b, &q); err != nil {
			return err
		}
		if strings.TrimSpace(q.ID) == "" {
			return errors.New(`query has no "_id"`)
		}
		queries = append(queries, q)
		return nil
	}); err != nil {
		return nil, err
	}
	gold, err := readQrels(filepath.Join(dir, "qrels", "test.tsv"), stored)
	if err != nil {
		return nil, err
	}
	for _, q := range queries {
		if g := gold[q.ID]; len(g) > 0 && strings.TrimSpace(q.Text) != "" {
			d.Queries = append(d.Queries, Query{ID: q.ID, Text: q.Text, Gold: g})
		}
	}
	if len(d.Queries) == 0 && len(d.Facts) > 0 {
		return nil, fmt.Errorf("%w: %s: no query has a judged-relevant document (score > 0) in the corpus", ErrFormat, dir)
	}
	return d, d.Validate()
}

// readQrels reads a BEIR qrels file: query-id, corpus-id and score,
// tab-separated, with or without a header line. It returns the gold
// documents (score > 0, present in stored) of each query, in file order.
func readQrels(path string, stored map[string]bool) (map[string][]string, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, fmt.Errorf("beir: %w", err)
	}
	defer f.Close()
	gold := map[string][]string{}
	seen := map[[2]string]bool{}
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 64<<10), maxLine)
	n := 0
	for sc.Scan() {
		n++
		s := strings.TrimSpace(sc.Text())
		if s == "" {
			continue
		}
		cols := strings.Split(s, "\t")
		if len(cols) != 3 {
			return nil, fmt.Errorf("%w: %s line %d: want 3 tab-separated columns (query-id, corpus-id, score), got %d", ErrFormat, path, n, len(cols))
		}
		score, err := strconv.ParseFloat(strings.TrimSpace(cols[2]), 64)
		if err != nil {
			if n == 1 {
				continue // the header line
			}
			return nil, fmt.Errorf("%w: %s line %d: score %q is not a number", ErrFormat, path, n, cols[2])
		}
		q, doc := strings.TrimSpace(cols[0]), strings.TrimSpace(cols[1])
		k := [2]string{q, doc}
		if score <= 0 || !stored[doc] || seen[k] {
			continue
		}
		seen[k] = true
		gold[q] = append(gold[q], doc)
	}
	if err := sc.Err(); err != nil {
		if errors.Is(err, bufio.ErrTooLong) {
			return nil, fmt.Errorf("%w: %s line %d is longer than %d bytes", ErrFormat, path, n+1, maxLine)
		}
		return nil, fmt.Errorf("beir: read %s: %w", path, err)
	}
	return gold, nil
}

// readJSONLines calls fn with every non-blank line of path; an error names
// the file and line, and starts with what (the data set's kind).
func readJSONLines(what, path string, fn func([]byte) error) error {
	f, err := os.Open(path)
	if err != nil {
		return fmt.Errorf("%s: %w", what, err)
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 64<<10), maxLine)
	n := 0
	for sc.Scan() {
		n++
		if strings.TrimSpace(sc.Text()) == "" {
			continue
		}
		if err := fn(sc.Bytes()); err != nil {
			return fmt.Errorf("%w: %s line %d: %v", ErrFormat, path, n, err)
		}
	}
	if err := sc.Err(); err != nil {
		if errors.Is(err, bufio.ErrTooLong) {
			return fmt.Errorf("%w: %s line %d is longer than %d bytes", ErrFormat, path, n+1, maxLine)
		}
		return fmt.Errorf("%s: read %s: %w", what, path, err)
	}
	return nil
}
