package embed

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"math/rand/v2"
	"os"
	"path/filepath"
	"runtime"
	"runtime/debug"
	"slices"
	"strconv"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/holomem/holomem/errs"
	"github.com/holomem/holomem/internal/leaf/cputime"
)

// MiniLML12Config is the shape of paraphrase-multilingual-MiniLM-L12-v2
// (XLM-R, 250002 x 384, 12 layers), for GenerateModel and benchmarks.
var MiniLML12Config = Config{
	ModelType: "xlm-roberta", VocabSize: 250002, HiddenSize: 384, NumLayers: 12, NumHeads: 12,
	IntermediateSize: 1536, MaxPositions: 514, TypeVocabSize: 1, LayerNormEps: 1e-5,
	PadTokenID: 1, HiddenAct: "gelu", Pooling: PoolingMean, MaxSeqLength: 128,
}

// MiniLML6Config is the shape of all-MiniLM-L6-v2 (BERT, 30522 x 384, 6 layers).
var MiniLML6Config = Config{
	ModelType: "bert", VocabSize: 30522, HiddenSize: 384, NumLayers: 6, NumHeads: 12,
	IntermediateSize: 1536, MaxPositions: 512, TypeVocabSize: 2, LayerNormEps: 1e-12,
	PadTokenID: 0, HiddenAct: "gelu", Pooling: PoolingMean, MaxSeqLength: 256,
}

// BenchCase is one input of the speed benchmark: a batch of token-id
// sequences (special tokens included) under a stable name.
type BenchCase struct {
	Name  string
	Batch [][]int32
}

// BenchInputs returns the speed cases for cfg: one text of 10, 60 and 128
// tokens (cut to the model's maximum), a batch of 32 texts of 8-47 tokens
// and a batch of 32 texts of 28 tokens. Ids are random but fixed (seeded),
// so ONNX Runtime can time exactly the same inputs (scripts/onnx-ref).
func BenchInputs(cfg Config) []BenchCase {
	rng := rand.New(rand.NewPCG(1, 2))
	seq := func(n int) []int32 {
		n = min(n, cfg.maxTokens())
		ids := make([]int32, n)
		for i := range ids {
			ids[i] = 3 + rng.Int32N(int32(max(cfg.VocabSize-3, 1)))
		}
		return ids
	}
	batch := func(lo, hi int) [][]int32 {
		b := make([][]int32, 32)
		for i := range b {
			b[i] = seq(lo + rng.IntN(hi-lo+1))
		}
		return b
	}
	return []BenchCase{
		{"1 text x 10 tokens", [][]int32{seq(10)}},
		{"1 text x 60 tokens", [][]int32{seq(60)}},
		{"1 text x 128 tokens", [][]int32{seq(128)}},
		{"32 texts x 8-47 tokens", batch(8, 47)},
		{"32 texts x 28 tokens", batch(28, 28)},
	}
}

// benchInputsFile is inputs.json in a model directory: the batches that
// scripts/onnx-ref runs, with names when they are BenchInputs.
type benchInputsFile struct {
	Names   []string    `json:"names,omitempty"`
	Batches [][][]int32 `json:"batches"`
}

// WriteBenchInputs writes BenchInputs(cfg) to dir/inputs.json, which
// scripts/onnx-ref reads, unless that file already exists.
func WriteBenchInputs(dir string, cfg Config) error {
	path := filepath.Join(dir, "inputs.json")
	if _, err := os.Stat(path); err == nil {
		return nil
	}
	var f benchInputsFile
	for _, c := range BenchInputs(cfg) {
		f.Names = append(f.Names, c.Name)
		f.Batches = append(f.Batches, c.Batch)
	}
	data, err := json.Marshal(f)
	if err != nil {
		return err
	}
	return os.WriteFile(path, append(data, '\n'), 0o644)
}

// benchCases reads dir/inputs.json when it names its batches (as
// WriteBenchInputs and scripts/onnx-ref/ref.py write it) and falls back to
// BenchInputs otherwise.
func benchCases(dir string, cfg Config) ([]BenchCase, error) {
	data, err := os.ReadFile(filepath.Join(dir, "inputs.json"))
	if errors.Is(err, fs.ErrNotExist) {
		return BenchInputs(cfg), nil
	}
	if err != nil {
		return nil, err
	}
	var f benchInputsFile
	if err := json.Unmarshal(data, &f); err != nil {
		return nil, fmt.Errorf("%s: %w: %w", filepath.Join(dir, "inputs.json"), errs.ErrInvalid, err)
	}
	if len(f.Names) == 0 || len(f.Names) != len(f.Batches) {
		return BenchInputs(cfg), nil
	}
	cases := make([]BenchCase, len(f.Names))
	for i := range cases {
		cases[i] = BenchCase{f.Names[i], f.Batches[i]}
	}
	return cases, nil
}

// BenchSpeed times every case of dir/inputs.json (or BenchInputs) with one
// thread and writes one tab-separated line per case: name, wall and CPU
// milliseconds per text (medians over repeated calls), and the calls
// timed; then "load" (Open and Load, wall and CPU ms) and "peak RSS MB"
// (VmHWM). scripts/onnx-ref/time.js prints the same lines for ONNX
// Runtime, and scripts/onnx-ref/compare.sh interleaves the two.
func BenchSpeed(ctx context.Context, dir string, w io.Writer) error {
	start, cpu0 := time.Now(), cputime.Process().Seconds()
	e, err := Open(dir, &Options{Threads: 1})
	if err != nil {
		return fmt.Errorf("bench: %w", err)
	}
	defer e.Close()
	if err := e.Load(); err != nil && !e.Loaded() {
		return fmt.Errorf("bench: %w", err)
	}
	loadWall, loadCPU := float64(time.Since(start).Microseconds())/1000, (cputime.Process().Seconds()-cpu0)*1000
	cases, err := benchCases(dir, e.Config())
	if err != nil {
		return fmt.Errorf("bench: %w", err)
	}
	for _, c := range cases {
		r, err := timeCase(ctx, e, c.Batch)
		if err != nil {
			return fmt.Errorf("bench %s: %w", c.Name, err)
		}
		fmt.Fprintf(w, "%s\t%.3f\t%.3f\t%d\n", c.Name, r.wall, r.cpu, r.calls)
	}
	fmt.Fprintf(w, "load\t%.3f\t%.3f\t1\n", loadWall, loadCPU)
	if r, err := readRSS(); err == nil {
		fmt.Fprintf(w, "peak RSS MB\t%.1f\t%.1f\t1\n", float64(r.peak)/1024, float64(r.peak)/1024)
	}
	return nil
}

// BenchReport loads the model in dir and writes a table to w: load time;
// for one text of 10, 60 and 128 tokens and batches of 32 texts (mixed and
// equal lengths; see BenchInputs), milliseconds per text and texts per
// second with one thread and with all CPUs; Embed on text through the
// tokenizer; and the process RSS (VmRSS and peak VmHWM from
// /proc/self/status, Linux only) before loading, with the model loaded,
// and after unloading. Times are medians of repeated calls, given as wall
// clock and as process CPU time, which stays meaningful on a busy machine.
// It takes about half a minute for MiniLM-L12 and stops early when ctx is
// done.
func BenchReport(ctx context.Context, dir string, w io.Writer) error {
	rssBefore, _ := readRSS()
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	defer tw.Flush()
	procs := runtime.GOMAXPROCS(0)
	e, err := Open(dir, &Options{Threads: 1})
	if err != nil {
		return fmt.Errorf("bench: %w", err)
	}
	defer e.Close()
	cfg := e.Config()
	cases, err := benchCases(dir, cfg)
	if err != nil {
		return fmt.Errorf("bench: %w", err)
	}
	fmt.Fprintf(tw, "model\t%s\n", e.ModelID())
	fmt.Fprintf(tw, "shape\t%s vocab %d, hidden %d, %d layers, intermediate %d, max tokens %d\n", cfg.ModelType, cfg.VocabSize, cfg.HiddenSize, cfg.NumLayers, cfg.IntermediateSize, cfg.maxTokens())
	fmt.Fprintf(tw, "kernels\t%s, GOMAXPROCS %d, load average %s\n", e.Kernels(), procs, loadAvg())
	fmt.Fprintf(tw, "RSS before load\t%s\n", rssBefore)

	start, cpu0 := time.Now(), cputime.Process().Seconds()
	// A missing tokenizer is fine here: the runs below use token ids.
	if err := e.Load(); err != nil && !e.Loaded() {
		return fmt.Errorf("bench: %w", err)
	}
	fmt.Fprintf(tw, "load (read and pack weights, tokenizer)\t%s\n", since(start, cpu0, 1))

	start, cpu0 = time.Now(), cputime.Process().Seconds()
	if _, err := e.EmbedTokens(ctx, cases[0].Batch); err != nil {
		return fmt.Errorf("bench: %w", err)
	}
	fmt.Fprintf(tw, "first embed after load (%s)\t%s\n", cases[0].Name, since(start, cpu0, 1))
	run := func(e *Embedder, threads string) error {
		for _, c := range cases {
			r, err := timeCase(ctx, e, c.Batch)
			if err != nil {
				return err
			}
			fmt.Fprintf(tw, "%s, %s\t%s\n", c.Name, threads, r)
		}
		return nil
	}
	if err := run(e, "1 thread"); err != nil {
		return fmt.Errorf("bench: %w", err)
	}
	for _, c := range []struct{ name, text string }{
		{"text: one sentence, with tokenizer", "The quick brown fox jumps over the lazy dog near the river bank."},
		{"text: 100k characters, with tokenizer", strings.Repeat("Компактный формат, short words. ", 3200)},
	} {
		if _, err := e.Embed(ctx, []string{c.text}); err != nil {
			fmt.Fprintf(tw, "%s\tskipped: %v\n", c.name, err)
			break
		}
		start, cpu0 := time.Now(), cputime.Process().Seconds()
		n := 0
		for time.Since(start) < 500*time.Millisecond || n < 3 {
			if _, err := e.Embed(ctx, []string{c.text}); err != nil {
				return fmt.Errorf("bench: %w", err)
			}
			n++
		}
		fmt.Fprintf(tw, "%s\t%s\n", c.name, since(start, cpu0, n))
	}
	rssLoaded, _ := readRSS()
	fmt.Fprintf(tw, "RSS loaded, after the runs above\t%s\n", rssLoaded)
	if err := e.Unload(); err != nil {
		return fmt.Errorf("bench: %w", err)
	}
	debug.FreeOSMemory()
	rssAfter, _ := readRSS()
	fmt.Fprintf(tw, "RSS after unload\t%s\n", rssAfter)
	start, cpu0 = time.Now(), cputime.Process().Seconds()
	if _, err := e.EmbedTokens(ctx, cases[0].Batch); err != nil {
		return fmt.Errorf("bench: %w", err)
	}
	fmt.Fprintf(tw, "reload + first embed (%s)\t%s\n", cases[0].Name, since(start, cpu0, 1))
	if err := e.Close(); err != nil {
		return fmt.Errorf("bench: %w", err)
	}
	if procs > 1 {
		eAll, err := Open(dir, &Options{Threads: procs})
		if err != nil {
			return fmt.Errorf("bench: %w", err)
		}
		defer eAll.Close()
		if err := run(eAll, fmt.Sprintf("%d threads", procs)); err != nil {
			return fmt.Errorf("bench: %w", err)
		}
	}
	return nil
}

// since formats the wall and CPU time since start, divided by n.
func since(start time.Time, cpu0 float64, n int) string {
	wall := float64(time.Since(start).Microseconds()) / 1000 / float64(n)
	cpu := (cputime.Process().Seconds() - cpu0) * 1000 / float64(n)
	return fmt.Sprintf("%8.2f ms wall %8.2f ms CPU", wall, cpu)
}

// caseTime is the median time per text of one case.
type caseTime struct {
	wall, cpu, minCPU float64 // ms per text
	calls             int
}

func (r caseTime) String() string {
	return fmt.Sprintf("%8.2f ms wall %8.2f ms CPU (min %.2f)  %7.1f texts/s wall %7.1f texts/s CPU", r.wall, r.cpu, r.minCPU, 1000/r.wall, 1000/r.cpu)
}

// timeCase calls EmbedTokens on batch for about a second (at least five
// calls, after one warm-up call) and returns the median wall and CPU time
// per text; medians, unlike means, shrug off the calls another process
// preempted.
func timeCase(ctx context.Context, e *Embedder, batch [][]int32) (caseTime, error) {
	if _, err := e.EmbedTokens(ctx, batch); err != nil { // warm up
		return caseTime{}, err
	}
	var walls, cpus []float64
	start := time.Now()
	for time.Since(start) < time.Second || len(walls) < 5 {
		t0, c0 := time.Now(), cputime.Process().Seconds()
		if _, err := e.EmbedTokens(ctx, batch); err != nil {
			return caseTime{}, err
		}
		walls = append(walls, float64(time.Since(t0).Nanoseconds())/1e6/float64(len(batch)))
		cpus = append(cpus, (cputime.Process().Seconds()-c0)*1000/float64(len(batch)))
	}
	slices.Sort(walls)
	slices.Sort(cpus)
	return caseTime{wall: walls[len(walls)/2], cpu: cpus[len(cpus)/2], minCPU: cpus[0], calls: len(walls)}, nil
}

// loadAvg returns the 1-minute load average from /proc/loadavg, or "n/a".
func loadAvg() string {
	data, err := os.ReadFile("/proc/loadavg")
	if err != nil {
		return "n/a"
	}
	f := strings.Fields(string(data))
	if len(f) == 0 {
		return "n/a"
	}
	return f[0]
}

// rss is the resident set size now and at its peak.
type rss struct{ cur, peak int64 } // kB

func (r rss) String() string {
	if r.cur == 0 {
		return "n/a"
	}
	return fmt.Sprintf("%.1f MB (peak %.1f MB)", float64(r.cur)/1024, float64(r.peak)/1024)
}

// readRSS reads VmRSS and VmHWM from /proc/self/status.
func readRSS() (rss, error) {
	f, err := os.Open("/proc/self/status")
	if err != nil {
		return rss{}, err
	}
	defer f.Close()
	var r rss
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		k, v, ok := strings.Cut(sc.Text(), ":")
		if !ok {
			continue
		}
		kb, _ := strconv.ParseInt(strings.TrimSuffix(strings.TrimSpace(v), " kB"), 10, 64)
		switch k {
		case "VmRSS":
			r.cur = kb
		case "VmHWM":
			r.peak = kb
		}
	}
	return r, sc.Err()
}
