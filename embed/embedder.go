package embed

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"path/filepath"
	"runtime"
	"strings"
	"sync"
	"sync/atomic"
	"time"
	"unicode/utf8"

	"github.com/holomem/holomem/internal/leaf/safefile"

	"github.com/holomem/holomem/errs"
	"github.com/holomem/holomem/spm"
)

// DefaultMaxBatch is the default number of texts run through the encoder
// together.
const DefaultMaxBatch = 32

// maxBytesPerToken bounds how much of a text can matter: the text is cut to
// maxTokens*maxBytesPerToken bytes before tokenising, so a 100k-character
// input never builds buffers proportional to its length. No vocabulary
// piece of the supported models is longer than 64 bytes.
const maxBytesPerToken = 64

// ErrClosed is returned by Embed after Close.
var ErrClosed = errors.New("embed: embedder closed")

// Tokenizer turns text into the token ids of a model. EncodeForModel returns
// at most maxLen ids including the special tokens the model expects (<s> and
// </s>, or [CLS] and [SEP]); VocabSize is the size of its vocabulary, which
// must not exceed the model's. The spm package's Tokenizer implements it.
// Implementations must be safe for concurrent use.
type Tokenizer interface {
	EncodeForModel(text string, maxLen int) ([]int32, error)
	VocabSize() int
}

// Options configure an Embedder; they are fixed at Open. The zero value is
// usable.
type Options struct {
	// Name is the model name in ModelID. Default: the base name of the
	// model directory.
	Name string
	// Revision is the revision in ModelID. Default: the first 12 hex digits
	// of a SHA-256 over config.json and the safetensors header.
	Revision string
	// Threads is the number of goroutines one Embed call may use. Zero
	// means runtime.NumCPU(); 1 runs on the calling goroutine only.
	Threads int
	// IdleTimeout unloads the weights when no Embed call ran for this long.
	// Zero means never; Close always unloads.
	IdleTimeout time.Duration
	// MaxBatch is the number of texts encoded together. Zero means
	// DefaultMaxBatch.
	MaxBatch int
	// LoadTokenizer loads the tokenizer from the model directory together
	// with the weights (and drops it on unload). Nil means [LoadSPM]
	// (tokenizer.json or sentencepiece.bpe.model). If it fails, Embed
	// returns its error while EmbedTokens still works.
	LoadTokenizer func(dir string) (Tokenizer, error)
	// NoSIMD selects the pure-Go kernels even when the CPU has AVX2 and FMA
	// (for tests and comparisons).
	NoSIMD bool
	// Kernels names the kernel set to use: "avx512", "avx2" or "go" (for
	// tests and comparisons). Empty means the fastest this CPU supports;
	// a set the CPU lacks is an error at Open.
	Kernels string
}

// Embedder is an in-process sentence encoder. It implements
// holomem.Embedder. It reads the configuration at Open, loads the weights
// on the first Embed, and unloads them after Options.IdleTimeout and on
// Close. It is safe for concurrent use; calls share the loaded weights.
type Embedder struct {
	dir     string
	cfg     Config
	opts    Options
	modelID string
	k       *kernels
	// lastUse is the UnixNano time the last call finished.
	lastUse atomic.Int64
	// loads counts weight loads (for tests and bench).
	loads atomic.Int64

	// mu guards the loaded state: Embed holds it for reading while it runs,
	// load and unload hold it for writing.
	mu struct {
		sync.RWMutex
		model  *model
		tok    Tokenizer
		tokErr error // why tok is nil
		timer  *time.Timer
		closed bool
	}
}

// Open prepares the model in dir without loading its weights: it reads and
// validates the configuration and the safetensors header. Errors wrap
// errs.ErrInvalid for unsupported or corrupt models and fs.ErrNotExist
// for missing files.
func Open(dir string, opts *Options) (*Embedder, error) {
	var o Options
	if opts != nil {
		o = *opts
	}
	cfg, err := ReadConfig(dir)
	if err != nil {
		return nil, fmt.Errorf("open embedder: %w", err)
	}
	if o.Threads <= 0 {
		o.Threads = runtime.NumCPU()
	}
	if o.MaxBatch <= 0 {
		o.MaxBatch = DefaultMaxBatch
	}
	if o.LoadTokenizer == nil {
		o.LoadTokenizer = LoadSPM
	}
	if o.Name == "" {
		abs, err := filepath.Abs(dir)
		if err != nil {
			return nil, fmt.Errorf("open embedder: %w", err)
		}
		o.Name = filepath.Base(abs)
	}
	if o.Revision == "" {
		if o.Revision, err = revision(dir); err != nil {
			return nil, fmt.Errorf("open embedder: %w", err)
		}
	}
	e := &Embedder{dir: dir, cfg: cfg, opts: o, k: defaultKernels()}
	if o.NoSIMD {
		e.k = genericKernels
	}
	if o.Kernels != "" {
		if e.k = kernelsByName(o.Kernels); e.k == nil {
			var have []string
			for _, k := range allKernels() {
				have = append(have, k.name)
			}
			return nil, fmt.Errorf("open embedder: %w: kernel set %q is not available on this CPU or build (available: %s)", errs.ErrInvalid, o.Kernels, strings.Join(have, ", "))
		}
	}
	e.modelID = o.Name + "@" + o.Revision + "#" + string(cfg.Pooling)
	return e, nil
}

// revision hashes config.json and the safetensors header, checking the
// header on the way.
func revision(dir string) (string, error) {
	h := sha256.New()
	cfgData, err := safefile.ReadFile(filepath.Join(dir, "config.json"), MaxConfigBytes)
	if err != nil {
		return "", err
	}
	h.Write(cfgData)
	f, err := safefile.Open(filepath.Join(dir, "model.safetensors"), MaxWeightsBytes)
	if err != nil {
		return "", err
	}
	defer f.Close()
	st, err := f.Stat()
	if err != nil {
		return "", err
	}
	if _, err := readSafetensorsHeader(f, st.Size()); err != nil {
		return "", fmt.Errorf("%s: %w", f.Name(), err)
	}
	var lb [8]byte
	if _, err := f.ReadAt(lb[:], 0); err != nil {
		return "", err
	}
	if _, err := io.Copy(h, io.NewSectionReader(f, 0, 8+int64(leUint64(lb[:])))); err != nil {
		return "", err
	}
	return hex.EncodeToString(h.Sum(nil))[:12], nil
}

func leUint64(b []byte) uint64 {
	return uint64(b[0]) | uint64(b[1])<<8 | uint64(b[2])<<16 | uint64(b[3])<<24 |
		uint64(b[4])<<32 | uint64(b[5])<<40 | uint64(b[6])<<48 | uint64(b[7])<<56
}

// ModelID returns name@revision#pooling.
func (e *Embedder) ModelID() string { return e.modelID }

// Dim returns the hidden size, the length of every vector.
func (e *Embedder) Dim() int { return e.cfg.HiddenSize }

// Config returns the model configuration read at Open.
func (e *Embedder) Config() Config { return e.cfg }

// MaxTokens returns the truncation length in tokens, special tokens included.
func (e *Embedder) MaxTokens() int { return e.cfg.maxTokens() }

// Kernels names the matrix kernels in use: "avx2" or "go".
func (e *Embedder) Kernels() string { return e.k.name }

// Loaded reports whether the weights are in memory.
func (e *Embedder) Loaded() bool {
	e.mu.RLock()
	defer e.mu.RUnlock()
	return e.mu.model != nil
}

// LoadSPM loads the SentencePiece tokenizer of a model directory with
// spm.Load; it is the default Options.LoadTokenizer.
func LoadSPM(dir string) (Tokenizer, error) {
	t, err := spm.Load(dir)
	if err != nil {
		return nil, err
	}
	return t, nil
}

// Load loads the weights and tokenizer now instead of on the first Embed.
// It is a no-op when they are loaded. If only the tokenizer fails, the
// weights stay loaded (EmbedTokens works) and Load returns the tokenizer's
// error.
func (e *Embedder) Load() error {
	e.mu.Lock()
	defer e.mu.Unlock()
	if err := e.loadLocked(); err != nil {
		return err
	}
	return e.mu.tokErr
}

// loadLocked loads the model; e.mu must be held for writing.
func (e *Embedder) loadLocked() error {
	if e.mu.closed {
		return ErrClosed
	}
	if e.mu.model != nil {
		return nil
	}
	m, err := loadModel(e.dir, e.cfg, e.k, e.opts.Threads)
	if err != nil {
		return err
	}
	tok, tokErr := e.opts.LoadTokenizer(e.dir)
	switch {
	case tokErr != nil:
		tok, tokErr = nil, fmt.Errorf("load tokenizer: %w", tokErr)
	case tok.VocabSize() > e.cfg.VocabSize:
		tok, tokErr = nil, fmt.Errorf("load tokenizer: %w: the tokenizer has %d ids but the model only %d embeddings (tokenizer and weights of different models?)", errs.ErrInvalid, tok.VocabSize(), e.cfg.VocabSize)
	}
	e.mu.model, e.mu.tok, e.mu.tokErr = m, tok, tokErr
	e.loads.Add(1)
	e.lastUse.Store(time.Now().UnixNano())
	if e.opts.IdleTimeout > 0 {
		e.mu.timer = time.AfterFunc(e.opts.IdleTimeout, e.idleCheck)
	}
	return nil
}

// idleCheck runs on the idle timer: it unloads when the model was not used
// for IdleTimeout and re-arms the timer otherwise.
func (e *Embedder) idleCheck() {
	e.mu.Lock()
	defer e.mu.Unlock()
	if e.mu.model == nil || e.mu.timer == nil {
		return
	}
	idle := time.Since(time.Unix(0, e.lastUse.Load()))
	if idle >= e.opts.IdleTimeout {
		e.unloadLocked()
		return
	}
	e.mu.timer.Reset(e.opts.IdleTimeout - idle)
}

// Unload drops the weights and tokenizer; the next Embed loads them again.
// It waits for running calls.
func (e *Embedder) Unload() error {
	e.mu.Lock()
	defer e.mu.Unlock()
	return e.unloadLocked()
}

// unloadLocked releases the model; e.mu must be held for writing.
func (e *Embedder) unloadLocked() error {
	if e.mu.timer != nil {
		e.mu.timer.Stop()
		e.mu.timer = nil
	}
	if e.mu.model == nil {
		return nil
	}
	err := e.mu.model.close()
	e.mu.model, e.mu.tok, e.mu.tokErr = nil, nil, nil
	// Return the freed heap (activations, decoded tensors) to the OS now
	// rather than at the next scavenge, so that RSS drops on unload.
	runtime.GC()
	return err
}

// Close unloads the model; later calls return ErrClosed. It waits for
// running calls.
func (e *Embedder) Close() error {
	e.mu.Lock()
	defer e.mu.Unlock()
	e.mu.closed = true
	return e.unloadLocked()
}

// acquire returns the loaded model and tokenizer (or why there is none)
// with e.mu held for reading; on success the caller must call e.release.
func (e *Embedder) acquire() (*model, Tokenizer, error, error) {
	for {
		e.mu.RLock()
		if e.mu.closed {
			e.mu.RUnlock()
			return nil, nil, nil, ErrClosed
		}
		if e.mu.model != nil {
			return e.mu.model, e.mu.tok, e.mu.tokErr, nil
		}
		e.mu.RUnlock()
		e.mu.Lock()
		err := e.loadLocked()
		e.mu.Unlock()
		if err != nil {
			return nil, nil, nil, fmt.Errorf("embed: %w", err)
		}
	}
}

func (e *Embedder) release() {
	e.lastUse.Store(time.Now().UnixNano())
	e.mu.RUnlock()
}

// Embed returns one L2-normalised vector per text. Texts are cut to
// MaxTokens tokens; invalid UTF-8 is replaced by U+FFFD. An empty text is
// embedded like sentence-transformers does it, from the special tokens
// alone, so it still gets a (meaningless but valid) vector. Embed loads the
// model on first use, checks ctx between batches and layers, and returns
// ctx.Err() when it is done.
func (e *Embedder) Embed(ctx context.Context, texts []string) ([][]float32, error) {
	if len(texts) == 0 {
		return [][]float32{}, nil
	}
	m, tok, tokErr, err := e.acquire()
	if err != nil {
		return nil, err
	}
	defer e.release()
	if tok == nil {
		return nil, fmt.Errorf("embed: %w", tokErr)
	}
	maxLen := e.cfg.maxTokens()
	ids := make([][]int32, len(texts))
	for i, t := range texts {
		if err := ctx.Err(); err != nil {
			return nil, err
		}
		t = clipText(t, maxLen*maxBytesPerToken)
		if ids[i], err = tok.EncodeForModel(t, maxLen); err != nil {
			return nil, fmt.Errorf("embed: tokenize text %d: %w", i, err)
		}
		if len(ids[i]) > maxLen {
			ids[i] = ids[i][:maxLen]
		}
	}
	return e.run(ctx, m, ids)
}

// clipText cuts s to at most n bytes on a rune boundary and makes it valid UTF-8.
func clipText(s string, n int) string {
	if len(s) > n {
		cut := n
		for cut > 0 && !utf8.RuneStart(s[cut]) {
			cut--
		}
		s = s[:cut]
	}
	if !utf8.ValidString(s) {
		s = strings.ToValidUTF8(s, "\uFFFD")
	}
	return s
}

// EmbedTokens embeds sequences of token ids that already include the
// special tokens, as a tokenizer's EncodeForModel returns them. Sequences
// longer than MaxTokens are cut (the last special token is lost). Returns
// a wrapped errs.ErrInvalid for an empty sequence or an id outside the
// vocabulary.
func (e *Embedder) EmbedTokens(ctx context.Context, ids [][]int32) ([][]float32, error) {
	if len(ids) == 0 {
		return [][]float32{}, nil
	}
	m, _, _, err := e.acquire()
	if err != nil {
		return nil, err
	}
	defer e.release()
	maxLen := e.cfg.maxTokens()
	cut := make([][]int32, len(ids))
	for i, s := range ids {
		cut[i] = s[:min(len(s), maxLen)]
	}
	return e.run(ctx, m, cut)
}

// maxBatchTokens bounds the tokens of one forward pass, which bounds its
// activations: about 15 KiB per token for MiniLM (31 MB at 2048 tokens).
const maxBatchTokens = 2048

// run encodes ids in batches of at most MaxBatch sequences and
// maxBatchTokens tokens (a longer single sequence still runs alone).
func (e *Embedder) run(ctx context.Context, m *model, ids [][]int32) ([][]float32, error) {
	out := make([][]float32, 0, len(ids))
	for lo := 0; lo < len(ids); {
		if err := ctx.Err(); err != nil {
			return nil, err
		}
		hi, tokens := lo, 0
		for hi < len(ids) && hi-lo < e.opts.MaxBatch && (hi == lo || tokens+len(ids[hi]) <= maxBatchTokens) {
			tokens += len(ids[hi])
			hi++
		}
		vs, err := m.forward(ctx, ids[lo:hi])
		if err != nil {
			return nil, fmt.Errorf("embed: %w", err)
		}
		out = append(out, vs...)
		lo = hi
	}
	return out, nil
}
