package embed_test

import (
	"context"
	"errors"
	"io"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/holomem/holomem"
	"github.com/holomem/holomem/embed"
)

// tinyConfig is a small XLM-R style model whose vocabulary fits
// testdata/bytes.model, a SentencePiece Unigram model of 1502 ids (copied
// from the spm package's fixtures, made by scripts/spm-fixture).
var tinyConfig = embed.Config{
	ModelType: "xlm-roberta", VocabSize: 1502, HiddenSize: 32, NumLayers: 2, NumHeads: 4,
	IntermediateSize: 64, MaxPositions: 34, TypeVocabSize: 1, LayerNormEps: 1e-5,
	PadTokenID: 1, HiddenAct: "gelu", Pooling: embed.PoolingMean,
}

// newTinyModel generates tinyConfig (changed by edit) into a temp dir with
// the spm test tokenizer and returns the directory.
func newTinyModel(tb testing.TB, edit func(*embed.Config)) string {
	tb.Helper()
	cfg := tinyConfig
	if edit != nil {
		edit(&cfg)
	}
	dir := tb.TempDir()
	if err := embed.GenerateModel(dir, cfg, 42); err != nil {
		tb.Fatal(err)
	}
	copyFile(tb, filepath.Join("testdata", "bytes.model"), filepath.Join(dir, "sentencepiece.bpe.model"))
	return dir
}

func copyFile(tb testing.TB, from, to string) {
	tb.Helper()
	data, err := os.ReadFile(from)
	if err != nil {
		tb.Fatal(err)
	}
	if err := os.WriteFile(to, data, 0o644); err != nil {
		tb.Fatal(err)
	}
}

func mustOpen(tb testing.TB, dir string, opts *embed.Options) *embed.Embedder {
	tb.Helper()
	e, err := embed.Open(dir, opts)
	if err != nil {
		tb.Fatal(err)
	}
	tb.Cleanup(func() { e.Close() })
	return e
}

func norm(v []float32) float64 {
	var s float64
	for _, x := range v {
		s += float64(x) * float64(x)
	}
	return s
}

func TestEmbedder_Embed(t *testing.T) {
	dir := newTinyModel(t, nil)
	e := mustOpen(t, dir, &embed.Options{Name: "tiny", Revision: "r1", Threads: 1})
	var _ holomem.Embedder = e
	if got, want := e.ModelID(), "tiny@r1#mean"; got != want {
		t.Errorf("ModelID() = %q, want %q", got, want)
	}
	if got, want := e.Dim(), 32; got != want {
		t.Errorf("Dim() = %d, want %d", got, want)
	}
	if got, want := e.MaxTokens(), 32; got != want {
		t.Errorf("MaxTokens() = %d, want %d", got, want)
	}
	if e.Loaded() {
		t.Fatal("loaded before the first Embed")
	}
	long := strings.Repeat("word ", 20_000) // 100k characters
	texts := []string{
		"hello world",
		"",                         // just <s></s>
		"bad \xff\xfe utf-8",       // replaced by U+FFFD
		"tab\tbell\a nul\x00 ctrl", // control characters
		long,
		"Привет, мир",
	}
	vs, err := e.Embed(t.Context(), texts)
	if err != nil {
		t.Fatal(err)
	}
	if !e.Loaded() {
		t.Fatal("not loaded after Embed")
	}
	if got, want := len(vs), len(texts); got != want {
		t.Fatalf("got %d vectors, want %d", got, want)
	}
	for i, v := range vs {
		if len(v) != 32 {
			t.Errorf("text %d: dim %d", i, len(v))
		}
		if n := norm(v); n < 0.9999 || n > 1.0001 {
			t.Errorf("text %d: squared norm %g, want 1", i, n)
		}
	}
	// Each text alone gives the same vector as in the batch.
	for i, text := range texts {
		one, err := e.Embed(t.Context(), []string{text})
		if err != nil {
			t.Fatal(err)
		}
		for d := range one[0] {
			if diff := one[0][d] - vs[i][d]; diff > 1e-5 || diff < -1e-5 {
				t.Fatalf("text %d dim %d: alone %g, in batch %g", i, d, one[0][d], vs[i][d])
			}
		}
	}
	// A text truncated at MaxTokens embeds like any longer text with the
	// same start.
	a, err := e.Embed(t.Context(), []string{long, long + " tail that is cut"})
	if err != nil {
		t.Fatal(err)
	}
	for d := range a[0] {
		if a[0][d] != a[1][d] {
			t.Fatalf("truncated texts differ at dim %d", d)
		}
	}
	if vs, err := e.Embed(t.Context(), nil); err != nil || len(vs) != 0 {
		t.Errorf("Embed(nil) = %v, %v", vs, err)
	}
}

func TestEmbedder_Lifecycle(t *testing.T) {
	dir := newTinyModel(t, nil)
	t.Run("IdleUnload", func(t *testing.T) {
		e := mustOpen(t, dir, &embed.Options{IdleTimeout: 20 * time.Millisecond})
		if _, err := e.Embed(t.Context(), []string{"a"}); err != nil {
			t.Fatal(err)
		}
		deadline := time.Now().Add(10 * time.Second)
		for e.Loaded() && time.Now().Before(deadline) {
			time.Sleep(5 * time.Millisecond)
		}
		if e.Loaded() {
			t.Fatal("still loaded long after the idle timeout")
		}
		// Reloads on demand.
		if _, err := e.Embed(t.Context(), []string{"a"}); err != nil {
			t.Fatal(err)
		}
	})
	t.Run("NeverUnload", func(t *testing.T) {
		e := mustOpen(t, dir, nil)
		if err := e.Load(); err != nil {
			t.Fatal(err)
		}
		time.Sleep(30 * time.Millisecond)
		if !e.Loaded() {
			t.Fatal("unloaded without an idle timeout")
		}
		if err := e.Unload(); err != nil {
			t.Fatal(err)
		}
		if e.Loaded() {
			t.Fatal("loaded after Unload")
		}
	})
	t.Run("ErrClosed", func(t *testing.T) {
		e := mustOpen(t, dir, nil)
		if _, err := e.Embed(t.Context(), []string{"a"}); err != nil {
			t.Fatal(err)
		}
		if err := e.Close(); err != nil {
			t.Fatal(err)
		}
		if _, err := e.Embed(t.Context(), []string{"a"}); !errors.Is(err, embed.ErrClosed) {
			t.Fatalf("Embed after Close: %v, want ErrClosed", err)
		}
		if e.Loaded() {
			t.Fatal("loaded after Close")
		}
	})
	t.Run("Canceled", func(t *testing.T) {
		e := mustOpen(t, dir, nil)
		ctx, cancel := context.WithCancel(t.Context())
		cancel()
		if _, err := e.Embed(ctx, []string{"a", "b"}); !errors.Is(err, context.Canceled) {
			t.Fatalf("Embed with canceled ctx: %v", err)
		}
	})
	t.Run("Concurrent", func(t *testing.T) {
		e := mustOpen(t, dir, &embed.Options{IdleTimeout: time.Millisecond, Threads: 2})
		want, err := e.Embed(t.Context(), []string{"same text"})
		if err != nil {
			t.Fatal(err)
		}
		var wg sync.WaitGroup
		errs := make(chan error, 16)
		for i := range 8 {
			wg.Go(func() {
				for range 5 {
					if i%4 == 0 {
						e.Unload()
					}
					got, err := e.Embed(context.Background(), []string{"same text", "other"})
					if err != nil {
						errs <- err
						return
					}
					for d := range got[0] {
						if got[0][d] != want[0][d] {
							errs <- errors.New("vector changed under concurrency")
							return
						}
					}
				}
			})
		}
		wg.Wait()
		close(errs)
		for err := range errs {
			t.Fatal(err)
		}
	})
}

func TestEmbedder_EmbedTokens(t *testing.T) {
	e := mustOpen(t, filepath.Join("testdata", "tiny"), nil)
	for _, tc := range []struct {
		name string
		ids  [][]int32
	}{
		{"ErrEmptySequence", [][]int32{{}}},
		{"ErrIDTooLarge", [][]int32{{0, 1000, 2}}},
		{"ErrNegativeID", [][]int32{{0, -1, 2}}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if _, err := e.EmbedTokens(t.Context(), tc.ids); !errors.Is(err, holomem.ErrInvalid) {
				t.Fatalf("err = %v, want ErrInvalid", err)
			}
		})
	}
	t.Run("Truncates", func(t *testing.T) {
		long := make([]int32, 200)
		for i := range long {
			long[i] = int32(3 + i%900)
		}
		vs, err := e.EmbedTokens(t.Context(), [][]int32{long, long[:64]})
		if err != nil {
			t.Fatal(err)
		}
		for d := range vs[0] {
			if vs[0][d] != vs[1][d] {
				t.Fatal("200 tokens not cut to MaxTokens (64)")
			}
		}
	})
}

func TestEmbedder_ErrVocabMismatch(t *testing.T) {
	// The committed tiny model has 1000 embeddings; bytes.model has 1502 ids.
	dir := t.TempDir()
	for _, f := range []string{"config.json", "model.safetensors"} {
		copyFile(t, filepath.Join("testdata", "tiny", f), filepath.Join(dir, f))
	}
	copyFile(t, filepath.Join("testdata", "bytes.model"), filepath.Join(dir, "sentencepiece.bpe.model"))
	e := mustOpen(t, dir, nil)
	if err := e.Load(); !errors.Is(err, holomem.ErrInvalid) || !strings.Contains(err.Error(), "1502") {
		t.Fatalf("Load: %v, want ErrInvalid naming the sizes", err)
	}
	if _, err := e.Embed(t.Context(), []string{"x"}); !errors.Is(err, holomem.ErrInvalid) {
		t.Fatalf("Embed: %v, want ErrInvalid", err)
	}
	// The weights themselves are fine.
	if _, err := e.EmbedTokens(t.Context(), [][]int32{{0, 5, 2}}); err != nil {
		t.Fatal(err)
	}
}

func TestEmbedder_NoTokenizer(t *testing.T) {
	e := mustOpen(t, filepath.Join("testdata", "tiny"), nil)
	if _, err := e.Embed(t.Context(), []string{"x"}); !errors.Is(err, holomem.ErrNotFound) {
		t.Fatalf("Embed without tokenizer files: %v, want ErrNotFound", err)
	}
}

func TestOpen_Errors(t *testing.T) {
	src := filepath.Join("testdata", "tiny")
	for _, tc := range []struct {
		name    string
		edit    func(t *testing.T, dir string)
		atOpen  bool
		wantErr error
	}{
		{"ErrNoConfig", func(t *testing.T, dir string) { os.Remove(filepath.Join(dir, "config.json")) }, true, os.ErrNotExist},
		{"ErrNoWeights", func(t *testing.T, dir string) { os.Remove(filepath.Join(dir, "model.safetensors")) }, true, os.ErrNotExist},
		{"ErrUnsupportedArch", func(t *testing.T, dir string) {
			editFile(t, filepath.Join(dir, "config.json"), `"xlm-roberta"`, `"gpt2"`)
		}, true, holomem.ErrInvalid},
		{"ErrActivation", func(t *testing.T, dir string) {
			editFile(t, filepath.Join(dir, "config.json"), `"gelu"`, `"relu"`)
		}, true, holomem.ErrInvalid},
		{"ErrPooling", func(t *testing.T, dir string) {
			editFile(t, filepath.Join(dir, "1_Pooling", "config.json"), `"pooling_mode_mean_tokens": true`, `"pooling_mode_max_tokens": true`)
		}, true, holomem.ErrInvalid},
		{"ErrShape", func(t *testing.T, dir string) {
			editFile(t, filepath.Join(dir, "config.json"), `"intermediate_size": 128`, `"intermediate_size": 96`)
		}, false, holomem.ErrInvalid},
		{"ErrMissingLayer", func(t *testing.T, dir string) {
			editFile(t, filepath.Join(dir, "config.json"), `"num_hidden_layers": 3`, `"num_hidden_layers": 4`)
		}, false, holomem.ErrInvalid},
		{"ErrTruncated", func(t *testing.T, dir string) {
			p := filepath.Join(dir, "model.safetensors")
			fi, _ := os.Stat(p)
			os.Truncate(p, fi.Size()-100)
		}, true, holomem.ErrInvalid},
		{"ErrHeaderGarbage", func(t *testing.T, dir string) {
			p := filepath.Join(dir, "model.safetensors")
			f, _ := os.OpenFile(p, os.O_WRONLY, 0)
			f.WriteAt([]byte("\x10\x00\x00\x00\x00\x00\x00\x00{not json at all"), 0)
			f.Close()
		}, true, holomem.ErrInvalid},
	} {
		t.Run(tc.name, func(t *testing.T) {
			dir := t.TempDir()
			copyTree(t, src, dir)
			tc.edit(t, dir)
			e, err := embed.Open(dir, nil)
			if !tc.atOpen {
				if err != nil {
					t.Fatalf("Open: %v", err)
				}
				defer e.Close()
				_, err = e.EmbedTokens(t.Context(), [][]int32{{0, 5, 2}})
			}
			if !errors.Is(err, tc.wantErr) {
				t.Fatalf("err = %v, want %v", err, tc.wantErr)
			}
		})
	}
}

func editFile(t *testing.T, path, old, new string) {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(data), old) {
		t.Fatalf("%s has no %q", path, old)
	}
	if err := os.WriteFile(path, []byte(strings.Replace(string(data), old, new, 1)), 0o644); err != nil {
		t.Fatal(err)
	}
}

func copyTree(t *testing.T, from, to string) {
	t.Helper()
	err := filepath.WalkDir(from, func(p string, d os.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(from, p)
		if d.IsDir() {
			return os.MkdirAll(filepath.Join(to, rel), 0o755)
		}
		src, err := os.Open(p)
		if err != nil {
			return err
		}
		defer src.Close()
		dst, err := os.Create(filepath.Join(to, rel))
		if err != nil {
			return err
		}
		defer dst.Close()
		_, err = io.Copy(dst, src)
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
}

// TestEmbedder_Batches checks that splitting into batches (by count and by
// tokens) does not change any vector.
func TestEmbedder_Batches(t *testing.T) {
	dir := filepath.Join("testdata", "tiny")
	var seqs [][]int32
	for i := range 70 {
		n := 2 + (i*37)%63
		s := make([]int32, n)
		for j := range s {
			s[j] = int32(3 + (i*131+j*17)%990)
		}
		seqs = append(seqs, s)
	}
	one := mustOpen(t, dir, &embed.Options{MaxBatch: 1, Threads: 1})
	want, err := one.EmbedTokens(t.Context(), seqs)
	if err != nil {
		t.Fatal(err)
	}
	for _, mb := range []int{3, 0} {
		e := mustOpen(t, dir, &embed.Options{MaxBatch: mb, Threads: 1})
		got, err := e.EmbedTokens(t.Context(), seqs)
		if err != nil {
			t.Fatal(err)
		}
		if len(got) != len(want) {
			t.Fatalf("MaxBatch %d: %d vectors, want %d", mb, len(got), len(want))
		}
		for i := range got {
			if cos, _ := compare(got[i], want[i]); cos < 0.999999 {
				t.Fatalf("MaxBatch %d seq %d: cosine %g to the one-by-one vector", mb, i, cos)
			}
		}
	}
}
