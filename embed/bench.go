package embed

import (
	"bufio"
	"context"
	"fmt"
	"io"
	"math/rand/v2"
	"os"
	"runtime"
	"runtime/debug"
	"strconv"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/holomem/holomem/internal/cputime"
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

// BenchReport loads the model in dir and writes a table to w: load time,
// milliseconds per text of 10 and 60 tokens with one thread and with all
// CPUs, texts per second in batches of 32, and the process RSS (VmRSS and
// peak VmHWM from /proc/self/status, Linux only) before loading, with the
// model loaded, and after unloading. Times are given as wall clock and as
// process CPU time, which stays meaningful on a busy machine. Token ids are
// random, so any model (real or made by GenerateModel) works without a
// tokenizer. It takes about ten seconds for MiniLM-L12 and stops early when
// ctx is done.
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
	fmt.Fprintf(tw, "model\t%s\n", e.ModelID())
	fmt.Fprintf(tw, "shape\t%s vocab %d, hidden %d, %d layers, intermediate %d, max tokens %d\n", cfg.ModelType, cfg.VocabSize, cfg.HiddenSize, cfg.NumLayers, cfg.IntermediateSize, cfg.maxTokens())
	fmt.Fprintf(tw, "kernels\t%s, GOMAXPROCS %d\n", e.Kernels(), procs)
	fmt.Fprintf(tw, "RSS before load\t%s\n", rssBefore)

	start, cpu0 := time.Now(), cputime.Process().Seconds()
	// A missing tokenizer is fine here: the runs below use token ids.
	if err := e.Load(); err != nil && !e.Loaded() {
		return fmt.Errorf("bench: %w", err)
	}
	fmt.Fprintf(tw, "load (read weights, check shapes, tokenizer)\t%s\n", since(start, cpu0, 1))

	rng := rand.New(rand.NewPCG(1, 2))
	seq := func(n int) []int32 {
		n = min(n, cfg.maxTokens())
		ids := make([]int32, n)
		for i := range ids {
			ids[i] = 3 + rng.Int32N(int32(cfg.VocabSize-3))
		}
		return ids
	}
	start, cpu0 = time.Now(), cputime.Process().Seconds()
	if _, err := e.EmbedTokens(ctx, [][]int32{seq(10)}); err != nil {
		return fmt.Errorf("bench: %w", err)
	}
	fmt.Fprintf(tw, "first embed after load (10 tokens)\t%s\n", since(start, cpu0, 1))
	batch := func() [][]int32 {
		b := make([][]int32, 32)
		for i := range b {
			b[i] = seq(8 + rng.IntN(40))
		}
		return b
	}
	run := func(e *Embedder, name string) error {
		for _, n := range []int{10, 60} {
			s, err := timePerCall(ctx, e, 1, func() [][]int32 { return [][]int32{seq(n)} })
			if err != nil {
				return err
			}
			fmt.Fprintf(tw, "one text of %d tokens, %s\t%s\n", n, name, s)
		}
		s, err := timePerCall(ctx, e, 32, batch)
		if err != nil {
			return err
		}
		fmt.Fprintf(tw, "batch of 32 texts of 8-47 tokens, %s, per text\t%s\n", name, s)
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
	if _, err := e.EmbedTokens(ctx, [][]int32{seq(10)}); err != nil {
		return fmt.Errorf("bench: %w", err)
	}
	fmt.Fprintf(tw, "reload + first embed (10 tokens)\t%s\n", since(start, cpu0, 1))
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

// timePerCall runs EmbedTokens for about a second and formats the time per
// text; texts is the number of texts per call.
func timePerCall(ctx context.Context, e *Embedder, texts int, input func() [][]int32) (string, error) {
	if _, err := e.EmbedTokens(ctx, input()); err != nil { // warm up
		return "", err
	}
	ins := make([][][]int32, 64)
	for i := range ins {
		ins[i] = input()
	}
	start, cpu0 := time.Now(), cputime.Process().Seconds()
	n := 0
	for time.Since(start) < time.Second || n < 3 {
		if _, err := e.EmbedTokens(ctx, ins[n%len(ins)]); err != nil {
			return "", err
		}
		n++
	}
	return since(start, cpu0, n*texts), nil
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
