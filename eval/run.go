package eval

import (
	"context"
	"fmt"
	"io"
	"slices"
	"sort"
	"strings"
	"time"

	"github.com/holomem/holomem"
	"github.com/holomem/holomem/text"
)

// Memory is what an evaluation needs from the memory under test: bulk
// loading and recall (retrieve.Memory satisfies it).
type Memory interface {
	ImportBatches(ctx context.Context, done func(facts []*holomem.Fact, created []bool)) holomem.ImportBatches
	Recall(ctx context.Context, q holomem.Query) (*holomem.Result, error)
}

// System is one ranking to measure over the loaded memory: a name and the
// channel weights its queries carry (nil: the memory's own weights).
type System struct {
	Name    string           `json:"name"`
	Weights *holomem.Weights `json:"weights,omitempty"`
}

// Config selects what Run measures.
type Config struct {
	// Ks are the cut-offs, ascending; empty means 5, 10, 25.
	Ks []int
	// Undated stores facts without their times (decay sees them as new).
	Undated bool
	// Systems are the rankings through the memory; empty means one
	// "hybrid" with the memory's weights. The BM25 baseline always runs.
	Systems []System
	// Metric is what "vs bm25" compares at the reference k: MetricRecall
	// (the default) or MetricNDCG.
	Metric string
	// MRRK is the cut-off of MRR; 0 means the largest k.
	MRRK int
	// PerQuery keeps every query's figures in the report (Report.PerQuery).
	PerQuery bool
	// Baselines are the BM25 systems to run, the first being what "vs
	// bm25" divides by; empty means [ClassicBM25] alone.
	Baselines []BM25Params
	// Progress, when set, hears how far loading ("load") and each
	// system's queries ("ask NAME") have got.
	Progress func(phase string, done, total int)
	// Now is the reference time of relative periods in questions ("last
	// year"), which decides the "names a period" subset; nil means
	// time.Now. The memory resolves its queries with its own clock.
	Now func() time.Time
}

// The subsets every report splits its questions into: those that name a
// date or a period ("in May 2023", "last week", "on October 13"), found by
// text.ParseTimeRange as recall's time channel finds them, and the rest.
const (
	SubsetPeriod   = "names a period"
	SubsetNoPeriod = "no period"
)

// subsetOf says which subset q falls in.
func subsetOf(q Query, now time.Time) string {
	if _, ok := text.ParseTimeRange(q.Text, now); ok {
		return SubsetPeriod
	}
	return SubsetNoPeriod
}

// tally accumulates one system's figures: overall, per category and per
// subset.
type tally struct {
	all     acc
	cats    map[string]*acc
	subsets map[string]*acc
	now     time.Time
}

func newTally(now time.Time) *tally {
	return &tally{cats: map[string]*acc{}, subsets: map[string]*acc{}, now: now}
}

func (t *tally) add(q Query, at []AtK, rr float64) {
	t.all.add(at, rr)
	for _, s := range []struct {
		m   map[string]*acc
		key string
	}{{t.cats, catOf(q)}, {t.subsets, subsetOf(q, t.now)}} {
		a := s.m[s.key]
		if a == nil {
			a = &acc{}
			s.m[s.key] = a
		}
		a.add(at, rr)
	}
}

// The metrics "vs bm25" can compare.
const (
	MetricRecall = "recall"
	MetricNDCG   = "ndcg"
)

// QueryScore is one system's figures on one query.
type QueryScore struct {
	System string `json:"system"`
	// NDCG is nDCG at the report's reference k.
	NDCG float64 `json:"ndcg"`
	// FirstRank is the 1-based rank of the first gold fact within the
	// largest k, 0 when none was found.
	FirstRank int `json:"first_rank"`
}

// QueryRow is one query's figures under every system, for error analysis.
type QueryRow struct {
	ID      string       `json:"id"`
	Text    string       `json:"text"`
	Gold    int          `json:"gold"`
	Systems []QueryScore `json:"systems"`
}

// SystemReport is one ranking's figures.
type SystemReport struct {
	Name       string             `json:"name"`
	Overall    Metrics            `json:"overall"`
	Categories map[string]Metrics `json:"categories"`
	// Subsets splits the questions by whether they name a period (see
	// SubsetPeriod).
	Subsets map[string]Metrics `json:"subsets"`
	// P50Ms and P99Ms are per-query latencies in milliseconds.
	P50Ms float64 `json:"p50_ms"`
	P99Ms float64 `json:"p99_ms"`
	// VsBM25 is the report's metric (recall unless it says ndcg) at the
	// reference k (10, else the largest) divided by the BM25 baseline's in
	// the same run.
	VsBM25   float64           `json:"vs_bm25"`
	Channels []holomem.Channel `json:"channels,omitempty"`
	Weights  *holomem.Weights  `json:"weights,omitempty"`
	perQuery []QueryScore
}

// Report is the result of one run.
type Report struct {
	Dataset string `json:"dataset"`
	Facts   int    `json:"facts"`
	Queries int    `json:"queries"`
	Dated   bool   `json:"dated"`
	Ks      []int  `json:"ks"`
	RefK    int    `json:"ref_k"`
	// Metric is what vs_bm25 compares at RefK: "recall" or "ndcg".
	Metric string `json:"metric"`
	// MRRK is MRR's cut-off.
	MRRK int `json:"mrr_k"`
	// Baselines say which BM25 each baseline system is; vs_bm25 divides
	// by the first.
	Baselines []string       `json:"baselines"`
	Systems   []SystemReport `json:"systems"`
	Notes     []string       `json:"notes,omitempty"`
	PerQuery  []QueryRow     `json:"per_query,omitempty"`
}

// BaselineName is the name of the BM25 system in a Report.
const BaselineName = "bm25"

// Run loads d into mem (which should be empty), asks every query of every
// system and returns the figures with the BM25 baselines first.
func Run(ctx context.Context, mem Memory, d *Dataset, cfg Config) (*Report, error) {
	if err := d.Validate(); err != nil {
		return nil, err
	}
	ks := slices.Clone(cfg.Ks)
	if len(ks) == 0 {
		ks = []int{5, 10, 25}
	}
	slices.Sort(ks)
	ks = slices.Compact(ks)
	if ks[0] <= 0 || ks[len(ks)-1] > holomem.MaxLimit {
		return nil, fmt.Errorf("%w: k must be within 1..%d", holomem.ErrInvalid, holomem.MaxLimit)
	}
	refK := ks[len(ks)-1]
	if slices.Contains(ks, 10) {
		refK = 10
	}
	systems := cfg.Systems
	if len(systems) == 0 {
		systems = []System{{Name: "hybrid"}}
	}
	metric := cfg.Metric
	switch metric {
	case "":
		metric = MetricRecall
	case MetricRecall, MetricNDCG:
	default:
		return nil, fmt.Errorf("%w: metric %q is neither %q nor %q", holomem.ErrInvalid, metric, MetricRecall, MetricNDCG)
	}
	mrrK := cfg.MRRK
	if mrrK <= 0 || mrrK > ks[len(ks)-1] {
		mrrK = ks[len(ks)-1]
	}
	rep := &Report{Dataset: d.Name, Facts: len(d.Facts), Queries: len(d.Queries), Dated: d.Dated() && !cfg.Undated,
		Ks: ks, RefK: refK, Metric: metric, MRRK: mrrK}
	baselines := cfg.Baselines
	if len(baselines) == 0 {
		baselines = []BM25Params{ClassicBM25}
	}
	for _, p := range baselines {
		rep.Baselines = append(rep.Baselines, p.String())
	}

	progress := cfg.Progress
	if progress == nil {
		progress = func(string, int, int) {}
	}
	idKeys, err := load(ctx, mem, d, cfg.Undated, progress)
	if err != nil {
		return nil, err
	}

	now := time.Now()
	if cfg.Now != nil {
		now = cfg.Now()
	}
	for _, p := range baselines {
		rep.Systems = append(rep.Systems, runBM25(d, p, ks, refK, mrrK, now))
	}
	base := rep.Systems[0]
	for _, sys := range systems {
		sr, notes, err := runSystem(ctx, mem, d, sys, ks, refK, mrrK, idKeys, progress, now)
		if err != nil {
			return nil, fmt.Errorf("%s: %w", sys.Name, err)
		}
		for _, n := range notes {
			if !slices.Contains(rep.Notes, n) {
				rep.Notes = append(rep.Notes, n)
			}
		}
		rep.Systems = append(rep.Systems, sr)
	}
	b := base.Overall.at(metric, refK)
	for i := range rep.Systems {
		if b > 0 {
			rep.Systems[i].VsBM25 = rep.Systems[i].Overall.at(metric, refK) / b
		}
	}
	if cfg.PerQuery {
		for i, q := range d.Queries {
			row := QueryRow{ID: q.ID, Text: q.Text, Gold: len(q.Gold)}
			for _, s := range rep.Systems {
				row.Systems = append(row.Systems, s.perQuery[i])
			}
			rep.PerQuery = append(rep.PerQuery, row)
		}
	}
	return rep, nil
}

// load imports the facts in batches and returns fact id -> external keys
// (two facts with the same content in a namespace become one fact).
func load(ctx context.Context, mem Memory, d *Dataset, undated bool, progress func(string, int, int)) (map[int64][]string, error) {
	idKeys := map[int64][]string{}
	const batch = 2000
	var starts []int // of the batches queued and not stored yet
	imp := mem.ImportBatches(ctx, func(fs []*holomem.Fact, _ []bool) {
		start := starts[0]
		starts = starts[1:]
		for i, hf := range fs {
			idKeys[hf.ID] = append(idKeys[hf.ID], d.Facts[start+i].Key)
		}
		progress("load", start+len(fs), len(d.Facts))
	})
	for start := 0; start < len(d.Facts); start += batch {
		var fs []*holomem.Fact
		for _, f := range d.Facts[start:min(start+batch, len(d.Facts))] {
			hf := &holomem.Fact{Namespace: nsOf(f.Namespace), Content: f.Text, ExternalKey: f.Key, Category: f.Category, Source: "eval"}
			if f.Time != nil && !undated {
				hf.CreatedAt, hf.UpdatedAt = *f.Time, *f.Time
			}
			fs = append(fs, hf)
		}
		starts = append(starts, start)
		if err := imp.Add(fs); err != nil {
			return nil, fmt.Errorf("load facts: %w", err)
		}
	}
	if err := imp.Wait(); err != nil {
		return nil, fmt.Errorf("load facts: %w", err)
	}
	return idKeys, nil
}

func catOf(q Query) string {
	if q.Category == "" {
		return "uncategorised"
	}
	return q.Category
}

func runBM25(d *Dataset, p BM25Params, ks []int, refK, mrrK int, now time.Time) SystemReport {
	byNS := map[string][]int{}
	for i, f := range d.Facts {
		byNS[nsOf(f.Namespace)] = append(byNS[nsOf(f.Namespace)], i)
	}
	idx := map[string]*BM25{}
	for ns, is := range byNS {
		keys, texts := make([]string, len(is)), make([]string, len(is))
		for j, i := range is {
			keys[j], texts[j] = d.Facts[i].Key, d.Facts[i].Text
		}
		idx[ns] = NewBM25With(p, keys, texts)
	}
	t := newTally(now)
	var lat []time.Duration
	sr := SystemReport{Name: p.Name}
	for _, q := range d.Queries {
		t0 := time.Now()
		ranked := idx[nsOf(q.Namespace)].Search(q.Text, ks[len(ks)-1])
		lat = append(lat, time.Since(t0))
		at, rr, first := score(ranked, q.Gold, ks, mrrK)
		t.add(q, at, rr)
		sr.perQuery = append(sr.perQuery, QueryScore{System: p.Name, NDCG: Metrics{At: at}.NDCGAt(refK), FirstRank: first})
	}
	return finish(sr, t, lat)
}

func finish(sr SystemReport, t *tally, lat []time.Duration) SystemReport {
	sr.Overall = t.all.metrics()
	sr.Categories = map[string]Metrics{}
	for c, a := range t.cats {
		sr.Categories[c] = a.metrics()
	}
	sr.Subsets = map[string]Metrics{}
	for c, a := range t.subsets {
		sr.Subsets[c] = a.metrics()
	}
	sr.P50Ms = float64(percentile(lat, 0.50).Microseconds()) / 1000
	sr.P99Ms = float64(percentile(lat, 0.99).Microseconds()) / 1000
	return sr
}

func runSystem(ctx context.Context, mem Memory, d *Dataset, sys System, ks []int, refK, mrrK int, idKeys map[int64][]string, progress func(string, int, int), now time.Time) (SystemReport, []string, error) {
	t := newTally(now)
	var lat []time.Duration
	sr := SystemReport{Name: sys.Name}
	var notes []string
	for qi, q := range d.Queries {
		progress("ask "+sys.Name, qi, len(d.Queries))
		hq := holomem.Query{Text: q.Text, Namespace: nsOf(q.Namespace), Limit: ks[len(ks)-1], NoTouch: true, Weights: sys.Weights}
		t0 := time.Now()
		res, err := mem.Recall(ctx, hq)
		lat = append(lat, time.Since(t0))
		if err != nil {
			return sr, nil, fmt.Errorf("query %q: %w", q.ID, err)
		}
		if sr.Channels == nil {
			sr.Channels, notes = res.Channels, res.Notes
			w := res.Weights
			sr.Weights = &w
		}
		var ranked []string
		for _, h := range res.Hits {
			ranked = append(ranked, idKeys[h.Fact.ID]...)
		}
		at, rr, first := score(ranked, q.Gold, ks, mrrK)
		t.add(q, at, rr)
		sr.perQuery = append(sr.perQuery, QueryScore{System: sys.Name, NDCG: Metrics{At: at}.NDCGAt(refK), FirstRank: first})
	}
	progress("ask "+sys.Name, len(d.Queries), len(d.Queries))
	return finish(sr, t, lat), notes, nil
}

// WriteText prints the report as tables: one row per system overall, then
// recall at the reference k per category.
func (r *Report) WriteText(w io.Writer) {
	dated := "undated"
	if r.Dated {
		dated = "dated"
	}
	fmt.Fprintf(w, "%s: %d facts, %d queries, %s\n", r.Dataset, r.Facts, r.Queries, dated)
	for _, b := range r.Baselines {
		fmt.Fprintf(w, "baseline: %s\n", b)
	}
	for _, n := range r.Notes {
		fmt.Fprintf(w, "note: %s\n", n)
	}
	var hdr strings.Builder
	fmt.Fprintf(&hdr, "%-16s", "system")
	for _, k := range r.Ks {
		fmt.Fprintf(&hdr, " %9s %6s %7s", fmt.Sprintf("recall@%d", k), fmt.Sprintf("hit@%d", k), fmt.Sprintf("ndcg@%d", k))
	}
	metric := r.Metric
	if metric == "" {
		metric = MetricRecall
	}
	fmt.Fprintf(&hdr, " %6s %8s %8s %s", fmt.Sprintf("mrr@%d", r.MRRK), "p50 ms", "p99 ms", fmt.Sprintf("%s@%d vs bm25", metric, r.RefK))
	fmt.Fprintln(w, hdr.String())
	for _, s := range r.Systems {
		fmt.Fprintf(w, "%-16s", s.Name)
		for _, a := range s.Overall.At {
			fmt.Fprintf(w, " %9.3f %6.3f %7.3f", a.Recall, a.Hit, a.NDCG)
		}
		fmt.Fprintf(w, " %6.3f %8.2f %8.2f %6.3fx\n", s.Overall.MRR, s.P50Ms, s.P99Ms, s.VsBM25)
	}
	r.writePerQuery(w)
	var cats []string
	if len(r.Systems) > 0 {
		for c := range r.Systems[0].Categories {
			cats = append(cats, c)
		}
	}
	sort.Strings(cats)
	r.writeSubsets(w)
	if len(cats) < 2 {
		return
	}
	fmt.Fprintf(w, "\nrecall@%d by category\n%-16s", r.RefK, "system")
	for _, c := range cats {
		fmt.Fprintf(w, " %14s", fmt.Sprintf("%s (%d)", c, r.Systems[0].Categories[c].N))
	}
	fmt.Fprintln(w)
	for _, s := range r.Systems {
		fmt.Fprintf(w, "%-16s", s.Name)
		for _, c := range cats {
			fmt.Fprintf(w, " %14.3f", s.Categories[c].RecallAt(r.RefK))
		}
		fmt.Fprintln(w)
	}
}

// writePerQuery prints one line per query: its id, each system's nDCG at
// the reference k and rank of the first gold fact ("-" when none), and
// the query's text.
func (r *Report) writePerQuery(w io.Writer) {
	if len(r.PerQuery) == 0 {
		return
	}
	fmt.Fprintf(w, "\nper query: ndcg@%d and rank of the first relevant fact within %d (- none)\n%-20s %4s", r.RefK, r.Ks[len(r.Ks)-1], "id", "gold")
	for _, s := range r.PerQuery[0].Systems {
		fmt.Fprintf(w, " %16s", s.System)
	}
	fmt.Fprintln(w, "  text")
	for _, q := range r.PerQuery {
		fmt.Fprintf(w, "%-20s %4d", q.ID, q.Gold)
		for _, s := range q.Systems {
			rank := "-"
			if s.FirstRank > 0 {
				rank = fmt.Sprint(s.FirstRank)
			}
			fmt.Fprintf(w, " %16s", fmt.Sprintf("%.3f %4s", s.NDCG, rank))
		}
		fmt.Fprintf(w, "  %s\n", strings.Join(strings.Fields(q.Text), " "))
	}
}

// writeSubsets prints recall at the reference k on the questions that name
// a period and on the others, when there are both.
func (r *Report) writeSubsets(w io.Writer) {
	if len(r.Systems) == 0 {
		return
	}
	p, o := r.Systems[0].Subsets[SubsetPeriod], r.Systems[0].Subsets[SubsetNoPeriod]
	if p.N == 0 || o.N == 0 {
		return
	}
	fmt.Fprintf(w, "\nrecall@%d by question\n%-16s %22s %16s\n", r.RefK, "system",
		fmt.Sprintf("%s (%d)", SubsetPeriod, p.N), fmt.Sprintf("%s (%d)", SubsetNoPeriod, o.N))
	for _, s := range r.Systems {
		fmt.Fprintf(w, "%-16s %22.3f %16.3f\n", s.Name, s.Subsets[SubsetPeriod].RecallAt(r.RefK), s.Subsets[SubsetNoPeriod].RecallAt(r.RefK))
	}
}
