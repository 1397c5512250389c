package annbench

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/holomem/holomem/hnsw"
	"github.com/holomem/holomem/vec"
)

// Defaults for Options fields left at zero.
const (
	DefaultN       = 10_000
	DefaultDim     = 384
	DefaultQueries = 200
	DefaultK       = 10
	DefaultCentres = 1000
	DefaultNoise   = 0.75
)

// ErrOptions means Options are inconsistent; the message says which field.
var ErrOptions = errors.New("annbench: invalid options")

// Options selects the data and index settings of one benchmark run. Zero
// fields take the defaults named in their comments.
type Options struct {
	// N is the number of synthetic base vectors. Default 10000. Ignored
	// when BaseFile is set.
	N int
	// Dim is the synthetic vector length. Default 384.
	Dim int
	// Queries is the number of queries. Default 200. With BaseFile and no
	// QueryFile, the last Queries base vectors are held out as queries.
	Queries int
	// Seed fixes the synthetic data. 0 is a valid seed.
	Seed uint64
	// Dist is "clustered" (default) or "uniform"; see [Synthetic].
	Dist string
	// Centres is the number of clusters for Dist "clustered". Default 1000.
	Centres int
	// Noise is the cluster spread for Dist "clustered". Default 0.75.
	Noise float64
	// BaseFile and QueryFile name .fvecs files to use instead of synthetic
	// data. Vectors are normalised to unit length, since holomem ranks by
	// cosine.
	BaseFile, QueryFile string
	// K is the number of neighbours per query. Default 10.
	K int
	// M, EfConstruction and EfSearch configure the index; zero means the
	// hnsw package defaults (16, 200, 64).
	M, EfConstruction, EfSearch int
	// EfSweep lists extra ef values to measure recall and latency for.
	EfSweep []int
	// Workers is the goroutine count for building and for exact scans.
	// Default runtime.GOMAXPROCS(0).
	Workers int
	// Rescore is the int8 candidate multiplier; 0 means vec.DefaultRescore.
	Rescore int
	// Log, if set, receives progress lines (data generation, build
	// progress every 10%).
	Log io.Writer
}

func (o Options) withDefaults() (Options, error) {
	if o.N == 0 {
		o.N = DefaultN
	}
	if o.Dim == 0 {
		o.Dim = DefaultDim
	}
	if o.Queries == 0 {
		o.Queries = DefaultQueries
	}
	if o.K == 0 {
		o.K = DefaultK
	}
	if o.Dist == "" {
		o.Dist = "clustered"
	}
	if o.Centres == 0 {
		o.Centres = DefaultCentres
	}
	if o.Noise == 0 {
		o.Noise = DefaultNoise
	}
	if o.Workers <= 0 {
		o.Workers = runtime.GOMAXPROCS(0)
	}
	if o.Log == nil {
		o.Log = io.Discard
	}
	switch {
	case o.Dist != "clustered" && o.Dist != "uniform":
		return o, fmt.Errorf("%w: Dist %q, want clustered or uniform", ErrOptions, o.Dist)
	case o.N < 1 || o.Dim < 1 || o.Queries < 1 || o.K < 1:
		return o, fmt.Errorf("%w: N, Dim, Queries and K must be positive", ErrOptions)
	case o.QueryFile != "" && o.BaseFile == "":
		return o, fmt.Errorf("%w: QueryFile without BaseFile", ErrOptions)
	}
	return o, nil
}

// ParseInts parses a comma-separated list such as "16,32,64" for EfSweep.
func ParseInts(s string) ([]int, error) {
	var out []int
	for f := range strings.SplitSeq(s, ",") {
		if f = strings.TrimSpace(f); f == "" {
			continue
		}
		n, err := strconv.Atoi(f)
		if err != nil || n <= 0 {
			return nil, fmt.Errorf("%w: %q is not a positive integer", ErrOptions, f)
		}
		out = append(out, n)
	}
	return out, nil
}

// latencies summarises per-query times.
type latencies []time.Duration

func (l latencies) pct(p float64) time.Duration {
	if len(l) == 0 {
		return 0
	}
	s := slices.Clone(l)
	slices.Sort(s)
	i := int(p * float64(len(s)-1))
	return s[i]
}

func ms(d time.Duration) string { return fmt.Sprintf("%.3f", float64(d)/1e6) }

// Run benchmarks the HNSW index against exact scans on the data Options
// select and writes a table to w: N, distribution, build time, recall@K of
// the index against the exact float32 scan, p50/p99 query latency of the
// index, of the exact float32 scan and of the int8 scan with float32
// rescoring (and that scan's recall), peak and current RSS, and index bytes
// per vector beyond the vector itself. An ef sweep table follows when
// EfSweep is set. Queries run one at a time; the exact scans use Workers
// goroutines. Run checks ctx between phases and queries.
func Run(ctx context.Context, opt Options, w io.Writer) error {
	opt, err := opt.withDefaults()
	if err != nil {
		return err
	}
	base, queries, label, err := loadData(opt)
	if err != nil {
		return err
	}
	n, dim := len(base), len(base[0])
	ids := make([]int64, n)
	for i := range ids {
		ids[i] = int64(i)
	}

	fmt.Fprintf(opt.Log, "exact scans: %d queries over %d x %d\n", len(queries), n, dim)
	m := vec.NewMatrix(dim)
	m.SetWorkers(opt.Workers)
	for i, v := range base {
		if err := m.Add(ids[i], v); err != nil {
			return fmt.Errorf("load matrix: %w", err)
		}
	}
	m.EnableInt8()
	exact := make([][]int64, len(queries))
	var exactLat, int8Lat latencies
	int8IDs := make([][]int64, len(queries))
	for i, q := range queries {
		if err := ctx.Err(); err != nil {
			return err
		}
		t0 := time.Now()
		res, err := m.Search(q, opt.K, nil)
		exactLat = append(exactLat, time.Since(t0))
		if err != nil {
			return fmt.Errorf("exact search: %w", err)
		}
		exact[i] = resultIDs(res)
		t0 = time.Now()
		res, err = m.SearchInt8(q, opt.K, opt.Rescore, nil)
		int8Lat = append(int8Lat, time.Since(t0))
		if err != nil {
			return fmt.Errorf("int8 search: %w", err)
		}
		int8IDs[i] = resultIDs(res)
	}
	matrixBytes := m.Bytes()
	m = nil // let the int8 copy go before measuring the index

	g, err := hnsw.New(dim, hnsw.Config{
		M: opt.M, EfConstruction: opt.EfConstruction, EfSearch: opt.EfSearch,
		Progress: progressLogger(opt.Log, n),
	})
	if err != nil {
		return err
	}
	fmt.Fprintf(opt.Log, "build: %d vectors, %d workers\n", n, opt.Workers)
	t0 := time.Now()
	if err := g.Build(ctx, ids, base, opt.Workers); err != nil {
		return err
	}
	build := time.Since(t0)
	runtime.GC()

	cfg := g.Config()
	annRecall, annLat, _, err := measure(ctx, g, queries, exact, opt.K, cfg.EfSearch)
	if err != nil {
		return err
	}
	rss, hwm := readRSS()
	overhead := float64(g.Bytes()-g.VectorBytes()) / float64(n)

	fmt.Fprintf(w, "# data: %s; K=%d M=%d efConstruction=%d efSearch=%d workers=%d GOMAXPROCS=%d\n",
		label, opt.K, cfg.M, cfg.EfConstruction, cfg.EfSearch, opt.Workers, runtime.GOMAXPROCS(0))
	if la := loadAvg(); la != "" {
		// Latencies on a shared machine mean little without the load.
		fmt.Fprintf(w, "# load average: %s\n", la)
	}
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', tabwriter.AlignRight)
	fmt.Fprintf(tw, "N\tdist\tbuild\trecall@%d\tann p50 ms\tann p99 ms\texact f32 p50\tp99\tint8+rescore p50\tp99\tint8 recall\tRSS MB\tpeak MB\tindex B/vec\tmatrix B/vec\t\n", opt.K)
	fmt.Fprintf(tw, "%d\t%s\t%s\t%.4f\t%s\t%s\t%s\t%s\t%s\t%s\t%.4f\t%d\t%d\t%.0f\t%.0f\t\n",
		n, opt.distLabel(), build.Round(time.Millisecond), annRecall,
		ms(annLat.pct(0.5)), ms(annLat.pct(0.99)),
		ms(exactLat.pct(0.5)), ms(exactLat.pct(0.99)),
		ms(int8Lat.pct(0.5)), ms(int8Lat.pct(0.99)),
		hnsw.Recall(int8IDs, exact), rss>>20, hwm>>20, overhead, float64(matrixBytes)/float64(n))
	if err := tw.Flush(); err != nil {
		return err
	}
	if len(opt.EfSweep) == 0 {
		return nil
	}
	fmt.Fprintln(w)
	tw = tabwriter.NewWriter(w, 0, 0, 2, ' ', tabwriter.AlignRight)
	fmt.Fprintf(tw, "ef\trecall@%d\tp50 ms\tp99 ms\tvisits/query\t\n", opt.K)
	for _, ef := range opt.EfSweep {
		r, lat, visits, err := measure(ctx, g, queries, exact, opt.K, ef)
		if err != nil {
			return err
		}
		fmt.Fprintf(tw, "%d\t%.4f\t%s\t%s\t%.0f\t\n", ef, r, ms(lat.pct(0.5)), ms(lat.pct(0.99)), visits)
	}
	return tw.Flush()
}

func (o Options) distLabel() string {
	if o.BaseFile != "" {
		return "file"
	}
	return o.Dist
}

func measure(ctx context.Context, g *hnsw.Graph, queries [][]float32, exact [][]int64, k, ef int) (float64, latencies, float64, error) {
	ann := make([][]int64, len(queries))
	lat := make(latencies, 0, len(queries))
	visits := 0
	// One untimed pass warms caches and the searcher pool.
	for _, q := range queries[:min(len(queries), 10)] {
		_, _ = g.Search(q, k, ef)
	}
	for i, q := range queries {
		if err := ctx.Err(); err != nil {
			return 0, nil, 0, err
		}
		t0 := time.Now()
		res, v, err := g.SearchStats(q, k, ef)
		lat = append(lat, time.Since(t0))
		if err != nil {
			return 0, nil, 0, fmt.Errorf("ann search: %w", err)
		}
		ann[i] = resultIDs(res)
		visits += v
	}
	return hnsw.Recall(ann, exact), lat, float64(visits) / float64(len(queries)), nil
}

func resultIDs(rs []vec.Result) []int64 {
	out := make([]int64, len(rs))
	for i, r := range rs {
		out[i] = r.ID
	}
	return out
}

func progressLogger(w io.Writer, total int) func(done, total int) {
	next := 0
	start := time.Now()
	return func(done, _ int) {
		if done*10 >= next*total || done == total {
			fmt.Fprintf(w, "build: %d/%d (%s)\n", done, total, time.Since(start).Round(time.Second))
			next = done*10/total + 1
		}
	}
}

func loadData(opt Options) (base, queries [][]float32, label string, err error) {
	if opt.BaseFile == "" {
		fmt.Fprintf(opt.Log, "generating %d+%d %s vectors of %d\n", opt.N, opt.Queries, opt.Dist, opt.Dim)
		all := Synthetic(opt.Dist, opt.N+opt.Queries, opt.Dim, opt.Centres, opt.Noise, opt.Seed)
		label = fmt.Sprintf("synthetic %s N=%d dim=%d seed=%d", opt.Dist, opt.N, opt.Dim, opt.Seed)
		if opt.Dist == "clustered" {
			label += fmt.Sprintf(" centres=%d noise=%g", opt.Centres, opt.Noise)
		}
		return all[:opt.N], all[opt.N:], label, nil
	}
	base, err = readFile(opt.BaseFile, 0)
	if err != nil {
		return nil, nil, "", err
	}
	if opt.QueryFile != "" {
		if queries, err = readFile(opt.QueryFile, opt.Queries); err != nil {
			return nil, nil, "", err
		}
		if len(queries) == 0 || len(queries[0]) != len(base[0]) {
			return nil, nil, "", fmt.Errorf("%s: %w: no queries or dimension differs from base", opt.QueryFile, ErrFormat)
		}
	} else {
		if len(base) <= opt.Queries {
			return nil, nil, "", fmt.Errorf("%w: %d base vectors cannot spare %d queries", ErrOptions, len(base), opt.Queries)
		}
		base, queries = base[:len(base)-opt.Queries], base[len(base)-opt.Queries:]
	}
	for _, v := range base {
		vec.Normalize(v)
	}
	for _, v := range queries {
		vec.Normalize(v)
	}
	return base, queries, fmt.Sprintf("files %s (%d) / %q (%d)", opt.BaseFile, len(base), opt.QueryFile, len(queries)), nil
}

func readFile(path string, limit int) ([][]float32, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, fmt.Errorf("read vectors: %w", err)
	}
	defer f.Close()
	v, err := ReadFvecs(f, limit)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	if len(v) == 0 {
		return nil, fmt.Errorf("%s: %w: no vectors", path, ErrFormat)
	}
	return v, nil
}

// loadAvg returns the first three fields of /proc/loadavg, or "".
func loadAvg() string {
	b, err := os.ReadFile("/proc/loadavg")
	if err != nil {
		return ""
	}
	f := strings.Fields(string(b))
	if len(f) < 3 {
		return ""
	}
	return strings.Join(f[:3], " ")
}

// readRSS returns VmRSS and VmHWM from /proc/self/status in bytes, or zeros
// where that file does not exist.
func readRSS() (rss, peak int64) {
	f, err := os.Open("/proc/self/status")
	if err != nil {
		return 0, 0
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		fields := strings.Fields(sc.Text())
		if len(fields) < 2 {
			continue
		}
		kb, err := strconv.ParseInt(fields[1], 10, 64)
		if err != nil {
			continue
		}
		switch fields[0] {
		case "VmRSS:":
			rss = kb << 10
		case "VmHWM:":
			peak = kb << 10
		}
	}
	return rss, peak
}
