package eval

import (
	"bufio"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strings"
	"time"

	"github.com/holomem/holomem"
)

// ErrFormat marks input that is not a valid data set; it wraps
// holomem.ErrInvalid so callers map it to "invalid input".
var ErrFormat = fmt.Errorf("%w: eval data", holomem.ErrInvalid)

// Fact is one labelled fact.
type Fact struct {
	Key       string     `json:"key"`
	Text      string     `json:"text"`
	Time      *time.Time `json:"time,omitempty"`
	Namespace string     `json:"namespace,omitempty"`
	Category  string     `json:"category,omitempty"`
}

// Query is one labelled query: the keys of the facts that answer it.
type Query struct {
	ID        string   `json:"id,omitempty"`
	Text      string   `json:"text"`
	Gold      []string `json:"gold"`
	Category  string   `json:"category,omitempty"`
	Namespace string   `json:"namespace,omitempty"`
}

// Dataset is the facts and queries of one evaluation.
type Dataset struct {
	Name    string
	Facts   []Fact
	Queries []Query
}

// Dated reports whether any fact carries a time.
func (d *Dataset) Dated() bool {
	for _, f := range d.Facts {
		if f.Time != nil {
			return true
		}
	}
	return false
}

type line struct {
	Kind string `json:"kind"`
	Fact
	ID   string   `json:"id"`
	Gold []string `json:"gold"`
}

// maxLine bounds one JSONL line (a fact's content is at most 256 KiB).
const maxLine = 1 << 20

// ReadJSONL reads a data set in the JSONL format of the package doc and
// validates it.
func ReadJSONL(r io.Reader, name string) (*Dataset, error) {
	d := &Dataset{Name: name}
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 64<<10), maxLine)
	n := 0
	for sc.Scan() {
		n++
		s := strings.TrimSpace(sc.Text())
		if s == "" || strings.HasPrefix(s, "#") {
			continue
		}
		var l line
		dec := json.NewDecoder(strings.NewReader(s))
		dec.DisallowUnknownFields()
		if err := dec.Decode(&l); err != nil {
			return nil, fmt.Errorf("%w: line %d: %v", ErrFormat, n, err)
		}
		switch l.Kind {
		case "fact":
			d.Facts = append(d.Facts, l.Fact)
		case "query":
			d.Queries = append(d.Queries, Query{ID: l.ID, Text: l.Text, Gold: l.Gold, Category: l.Category, Namespace: l.Namespace})
		default:
			return nil, fmt.Errorf("%w: line %d: kind %q is neither \"fact\" nor \"query\"", ErrFormat, n, l.Kind)
		}
	}
	if err := sc.Err(); err != nil {
		if errors.Is(err, bufio.ErrTooLong) {
			return nil, fmt.Errorf("%w: line %d is longer than %d bytes", ErrFormat, n+1, maxLine)
		}
		return nil, fmt.Errorf("read %s: %w", name, err)
	}
	return d, d.Validate()
}

// WriteJSONL writes d in the JSONL format ReadJSONL reads.
func WriteJSONL(w io.Writer, d *Dataset) error {
	enc := json.NewEncoder(w)
	for _, f := range d.Facts {
		if err := enc.Encode(struct {
			Kind string `json:"kind"`
			Fact
		}{"fact", f}); err != nil {
			return err
		}
	}
	for _, q := range d.Queries {
		if err := enc.Encode(struct {
			Kind string `json:"kind"`
			Query
		}{"query", q}); err != nil {
			return err
		}
	}
	return nil
}

func nsOf(s string) string {
	if s = strings.TrimSpace(s); s == "" {
		return holomem.DefaultNamespace
	}
	return s
}

// Validate checks that keys are unique per namespace, texts are non-empty
// and every gold key names a fact of the query's namespace.
func (d *Dataset) Validate() error {
	if len(d.Facts) == 0 {
		return fmt.Errorf("%w: no facts", ErrFormat)
	}
	if len(d.Queries) == 0 {
		return fmt.Errorf("%w: no queries", ErrFormat)
	}
	keys := map[[2]string]bool{}
	for i, f := range d.Facts {
		if strings.TrimSpace(f.Key) == "" {
			return fmt.Errorf("%w: fact %d has no key", ErrFormat, i+1)
		}
		if err := holomem.ValidateContent(f.Text); err != nil {
			return fmt.Errorf("%w: fact %q: %v", ErrFormat, f.Key, err)
		}
		k := [2]string{nsOf(f.Namespace), f.Key}
		if keys[k] {
			return fmt.Errorf("%w: fact key %q appears twice in namespace %q", ErrFormat, f.Key, k[0])
		}
		keys[k] = true
	}
	for i, q := range d.Queries {
		if strings.TrimSpace(q.Text) == "" {
			return fmt.Errorf("%w: query %d (%s) has no text", ErrFormat, i+1, q.ID)
		}
		if len(q.Gold) == 0 {
			return fmt.Errorf("%w: query %d (%s) has no gold keys", ErrFormat, i+1, q.ID)
		}
		for _, g := range q.Gold {
			if !keys[[2]string{nsOf(q.Namespace), g}] {
				return fmt.Errorf("%w: query %d (%s): gold key %q is no fact of namespace %q", ErrFormat, i+1, q.ID, g, nsOf(q.Namespace))
			}
		}
	}
	return nil
}
