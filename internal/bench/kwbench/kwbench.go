// Package kwbench compares holomem's recall without a model to a plain
// SQLite FTS5 BM25 top-10 query on the same documents, queries and driver
// (modernc), in one run, so the ratio means something on a busy machine:
// each query runs through both, one after the other.
//
// The baseline asks what recall's candidate generation asks: facts with
// any of the query's words (an OR of the words), ranked by BM25, top 10.
// A query that requires every word (AND) is cheaper but answers another
// question: on Zipf-distributed text most two-word queries match no
// document at all, so it returns far fewer hits than recall. It still
// runs, on a line of its own labelled as such, for comparison with older
// figures.
package kwbench

import (
	"bufio"
	"context"
	"database/sql"
	"fmt"
	"io"
	"math/rand/v2"
	"os"
	"path/filepath"
	"runtime/pprof"
	"strings"
	"time"

	"github.com/holomem/holomem"
	"github.com/holomem/holomem/internal/leaf/cputime"
	"github.com/holomem/holomem/internal/leaf/percentile"
	"github.com/holomem/holomem/retrieve"
	"github.com/holomem/holomem/sqlite"
)

// Options configure [Run].
type Options struct {
	// Docs and Queries are the data; empty means generated (see Generate).
	Docs, Queries []string
	// Rounds is how many times every query runs (default 3).
	Rounds int
	// Limit is the top-k of both sides (default 10).
	Limit int
	// CPUProfile, when set, is where a CPU profile of an extra pass of
	// recall alone is written.
	CPUProfile string
	// Dir holds the two databases; "" means a temporary directory.
	Dir string
}

// Report is what Run measured.
type Report struct {
	Docs, Queries, Samples int
	ImportRate             float64       // holomem Import, docs/s
	TextLoad               time.Duration // loading the in-memory text index once imported
	PlainImportRate        float64       // plain FTS5 insert, docs/s
	// Plain* is the any-word baseline (OR of the words, BM25, top k);
	// All* the every-word query (AND), kept for comparison.
	PlainP50, PlainP99   time.Duration
	AllP50, AllP99       time.Duration
	RecallP50, RecallP99 time.Duration
	// PlainCPU and RecallCPU are the process CPU time of each side summed
	// over all samples: unlike wall time, it barely moves when other work
	// shares the machine.
	PlainCPU, AllCPU, RecallCPU time.Duration
	// Stages is recall's time per stage summed over all samples.
	Stages retrieve.Stages
	// PlainHits, AllHits and RecallHits count the results returned: per
	// query, the any-word baseline and recall should both fill the top k
	// when the words occur at all.
	PlainHits, AllHits, RecallHits int
}

// Generate returns n documents of ~words words drawn from a Zipf
// distribution over a vocabulary of made-up words, and nq two-word queries
// drawn from the same distribution. The same seed gives the same data.
func Generate(n, words, nq int, seed uint64) (docs, queries []string) {
	r := rand.New(rand.NewPCG(seed, 0x5eed))
	const vocab = 50_000
	z := rand.NewZipf(r, 1.07, 2, vocab-1)
	word := func() string { return synthWord(int(z.Uint64())) }
	docs = make([]string, n)
	var b strings.Builder
	for i := range docs {
		b.Reset()
		k := words/2 + r.IntN(words+1)
		for j := range k {
			if j > 0 {
				b.WriteByte(' ')
			}
			b.WriteString(word())
		}
		docs[i] = b.String()
	}
	queries = make([]string, nq)
	for i := range queries {
		queries[i] = word() + " " + word()
	}
	return docs, queries
}

// synthWord spells i as syllables ("bako", "tirume"): distinct for distinct
// i, at least 4 letters, so no word is dropped as too short.
func synthWord(i int) string {
	const cons, vows = "bdfgklmnprstvz", "aeiou"
	var b []byte
	for {
		b = append(b, cons[i%len(cons)], vows[(i/len(cons))%len(vows)])
		i /= len(cons) * len(vows)
		if i == 0 && len(b) >= 4 {
			break
		}
	}
	return string(b)
}

// ReadLines reads one item per non-empty line.
func ReadLines(path string) ([]string, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	var out []string
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 0, 64<<10), 1<<20)
	for sc.Scan() {
		if t := strings.TrimSpace(sc.Text()); t != "" {
			out = append(out, t)
		}
	}
	if err := sc.Err(); err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	return out, nil
}

// Run loads the documents into a holomem store (bulk import, no model) and
// into a plain FTS5 table, then times every query through both, one after
// the other, for Rounds rounds.
func Run(ctx context.Context, o Options) (*Report, error) {
	if len(o.Docs) == 0 || len(o.Queries) == 0 {
		return nil, fmt.Errorf("%w: no documents or no queries", holomem.ErrInvalid)
	}
	if o.Rounds <= 0 {
		o.Rounds = 3
	}
	if o.Limit <= 0 {
		o.Limit = 10
	}
	dir := o.Dir
	if dir == "" {
		d, err := os.MkdirTemp("", "holomem-kwbench")
		if err != nil {
			return nil, err
		}
		defer os.RemoveAll(d)
		dir = d
	}
	rep := &Report{Docs: len(o.Docs), Queries: len(o.Queries)}

	plain, err := openPlain(ctx, filepath.Join(dir, "plain.db"), o.Docs, rep)
	if err != nil {
		return nil, fmt.Errorf("plain fts5: %w", err)
	}
	defer plain.close()

	s, err := sqlite.Open(ctx, filepath.Join(dir, "holomem.db"))
	if err != nil {
		return nil, err
	}
	defer s.Close()
	// Retrieval counts take the batched path of a warm `holomem serve` or
	// `holomem mcp` (queued, written every RetrievalFlush and on Close),
	// not the one-shot CLI's write per recall: the bench measures a warm
	// server's recall.
	// The text index lives in memory, as in a warm server.
	m, err := retrieve.New(s, retrieve.Options{RetrievalFlush: RetrievalFlush, LiveIndex: true})
	if err != nil {
		return nil, err
	}
	defer m.Close()
	t0 := time.Now()
	const batch = 1000
	imp := m.ImportBatches(ctx, nil)
	for start := 0; start < len(o.Docs); start += batch {
		fs := make([]*holomem.Fact, 0, batch)
		for _, d := range o.Docs[start:min(start+batch, len(o.Docs))] {
			fs = append(fs, &holomem.Fact{Content: d})
		}
		if err := imp.Add(fs); err != nil {
			return nil, fmt.Errorf("import: %w", err)
		}
	}
	if err := imp.Wait(); err != nil {
		return nil, fmt.Errorf("import: %w", err)
	}
	rep.ImportRate = float64(len(o.Docs)) / time.Since(t0).Seconds()
	t0 = time.Now()
	if err := m.WarmText(ctx); err != nil {
		return nil, fmt.Errorf("load text index: %w", err)
	}
	rep.TextLoad = time.Since(t0)

	recall := func(ctx context.Context, q string) (int, error) {
		res, err := m.Recall(ctx, holomem.Query{Text: q, Limit: o.Limit})
		if err != nil {
			return 0, err
		}
		return len(res.Hits), nil
	}
	// Warm both sides (page cache, prepared statements, caches).
	for _, q := range o.Queries[:min(10, len(o.Queries))] {
		if _, err := plain.search(ctx, q, o.Limit, false); err != nil {
			return nil, err
		}
		if _, err := plain.search(ctx, q, o.Limit, true); err != nil {
			return nil, err
		}
		if _, err := recall(ctx, q); err != nil {
			return nil, err
		}
	}
	var ps, as, rs []time.Duration
	sctx := retrieve.WithStages(ctx, &rep.Stages)
	for range o.Rounds {
		for _, q := range o.Queries {
			c, t := cputime.Process(), time.Now()
			n, err := plain.search(ctx, q, o.Limit, false)
			if err != nil {
				return nil, err
			}
			ps = append(ps, time.Since(t))
			rep.PlainCPU += cputime.Process() - c
			rep.PlainHits += n
			c, t = cputime.Process(), time.Now()
			if n, err = plain.search(ctx, q, o.Limit, true); err != nil {
				return nil, err
			}
			as = append(as, time.Since(t))
			rep.AllCPU += cputime.Process() - c
			rep.AllHits += n
			c, t = cputime.Process(), time.Now()
			if n, err = recall(sctx, q); err != nil {
				return nil, err
			}
			rs = append(rs, time.Since(t))
			rep.RecallCPU += cputime.Process() - c
			rep.RecallHits += n
		}
	}
	rep.Samples = len(rs)
	rep.PlainP50, rep.PlainP99 = Percentiles(ps)
	rep.AllP50, rep.AllP99 = Percentiles(as)
	rep.RecallP50, rep.RecallP99 = Percentiles(rs)

	if o.CPUProfile != "" {
		f, err := os.Create(o.CPUProfile)
		if err != nil {
			return nil, err
		}
		defer f.Close()
		if err := pprof.StartCPUProfile(f); err != nil {
			return nil, err
		}
		for range o.Rounds {
			for _, q := range o.Queries {
				if _, err := recall(ctx, q); err != nil {
					pprof.StopCPUProfile()
					return nil, err
				}
			}
		}
		pprof.StopCPUProfile()
	}
	return rep, nil
}

// RetrievalFlush is how often the bench's Memory writes queued retrieval
// counts: serve's and mcp's interval.
const RetrievalFlush = 5 * time.Second

// Percentiles returns p50 and p99 of samples (sorted in place).
func Percentiles(samples []time.Duration) (p50, p99 time.Duration) {
	if len(samples) == 0 {
		return 0, 0
	}
	return percentile.P50P99(samples)
}

// Print writes the report as a small table.
func (r *Report) Print(w io.Writer) {
	ms := func(d time.Duration) string { return fmt.Sprintf("%.3f ms", float64(d.Nanoseconds())/1e6) }
	fmt.Fprintf(w, "%d documents, %d queries x %d rounds = %d samples per side, top 10\n", r.Docs, r.Queries, r.Samples/max(1, r.Queries), r.Samples)
	fmt.Fprintf(w, "load: plain FTS5 %.0f docs/s, holomem import %.0f docs/s, text index load %.1f ms\n", r.PlainImportRate, r.ImportRate, float64(r.TextLoad.Microseconds())/1000)
	n := time.Duration(max(1, r.Samples))
	fmt.Fprintf(w, "%-38s %-12s %-12s %-14s %s\n", "", "p50", "p99", "CPU/query", "hits/query")
	fmt.Fprintf(w, "%-38s %-12s %-12s %-14s %.1f\n", "plain FTS5 BM25, any word (OR)", ms(r.PlainP50), ms(r.PlainP99), ms(r.PlainCPU/n), float64(r.PlainHits)/float64(n))
	fmt.Fprintf(w, "%-38s %-12s %-12s %-14s %.1f\n", "holomem recall, no model", ms(r.RecallP50), ms(r.RecallP99), ms(r.RecallCPU/n), float64(r.RecallHits)/float64(n))
	fmt.Fprintf(w, "%-38s %-12s %-12s %-14s %.1f\n", "plain FTS5 BM25, every word (AND)*", ms(r.AllP50), ms(r.AllP99), ms(r.AllCPU/n), float64(r.AllHits)/float64(n))
	fmt.Fprintf(w, "ratio recall / plain any word: p50 %.1f x, p99 %.1f x, CPU %.1f x (target p50 <= 4 x)\n", ratio(r.RecallP50, r.PlainP50), ratio(r.RecallP99, r.PlainP99), ratio(r.RecallCPU, r.PlainCPU))
	fmt.Fprintf(w, "* answers another question (every word required; fewer hits): recall / AND p50 %.1f x, for comparison only\n", ratio(r.RecallP50, r.AllP50))
	var total time.Duration
	for _, st := range retrieve.AllStages() {
		total += r.Stages.Get(st)
	}
	fmt.Fprintf(w, "recall stages (mean per query, share of traced time):\n")
	for _, st := range retrieve.AllStages() {
		d := r.Stages.Get(st)
		fmt.Fprintf(w, "  %-9s %9.3f ms %5.1f%%\n", st, float64(d.Nanoseconds())/1e6/float64(max(1, r.Stages.Calls)), 100*float64(d)/float64(max(1, total)))
	}
}

func ratio(a, b time.Duration) float64 {
	if b <= 0 {
		return 0
	}
	return float64(a) / float64(b)
}

// plainFTS is the reference: one FTS5 table, default tokenizer, one
// prepared top-k statement on one connection.
type plainFTS struct {
	db   *sql.DB
	stmt *sql.Stmt
}

func openPlain(ctx context.Context, path string, docs []string, rep *Report) (*plainFTS, error) {
	db, err := sql.Open("sqlite", "file:"+path+"?_pragma=journal_mode(WAL)&_pragma=synchronous(NORMAL)")
	if err != nil {
		return nil, err
	}
	db.SetMaxOpenConns(1)
	p := &plainFTS{db: db}
	if _, err := db.ExecContext(ctx, "CREATE VIRTUAL TABLE docs USING fts5(content)"); err != nil {
		p.close()
		return nil, err
	}
	t0 := time.Now()
	tx, err := db.BeginTx(ctx, nil)
	if err != nil {
		p.close()
		return nil, err
	}
	ins, err := tx.PrepareContext(ctx, "INSERT INTO docs(rowid, content) VALUES (?, ?)")
	if err != nil {
		tx.Rollback()
		p.close()
		return nil, err
	}
	for i, d := range docs {
		if _, err := ins.ExecContext(ctx, i+1, d); err != nil {
			tx.Rollback()
			p.close()
			return nil, err
		}
	}
	if err := tx.Commit(); err != nil {
		p.close()
		return nil, err
	}
	rep.PlainImportRate = float64(len(docs)) / time.Since(t0).Seconds()
	if p.stmt, err = db.PrepareContext(ctx, "SELECT rowid FROM docs WHERE docs MATCH ? ORDER BY rank LIMIT ?"); err != nil {
		p.close()
		return nil, err
	}
	return p, nil
}

// search runs the query's words as quoted FTS5 terms, any of which may
// match (OR, recall's candidate generation), or all of which must (AND)
// when every is set, and returns how many of the top limit it got.
func (p *plainFTS) search(ctx context.Context, q string, limit int, every bool) (int, error) {
	var terms []string
	for _, w := range strings.Fields(q) {
		terms = append(terms, `"`+strings.ReplaceAll(w, `"`, `""`)+`"`)
	}
	if len(terms) == 0 {
		return 0, nil
	}
	op := " OR "
	if every {
		op = " AND "
	}
	rows, err := p.stmt.QueryContext(ctx, strings.Join(terms, op), limit)
	if err != nil {
		return 0, err
	}
	defer rows.Close()
	n := 0
	for rows.Next() {
		var id int64
		if err := rows.Scan(&id); err != nil {
			return n, err
		}
		n++
	}
	return n, rows.Err()
}

func (p *plainFTS) close() {
	if p.stmt != nil {
		p.stmt.Close()
	}
	p.db.Close()
}
