package main

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/holomem/holomem"
	"github.com/holomem/holomem/embed"
	"github.com/holomem/holomem/spm"
)

// defaultModel is the sentence model holomem uses when one is installed.
const defaultModel = "sentence-transformers/paraphrase-multilingual-MiniLM-L12-v2"

// modelIdleTimeout unloads the model after this long without a request in
// long-running commands (serve, mcp).
const modelIdleTimeout = 10 * time.Minute

// modelDirPath returns the directory models are installed in.
func (a *app) modelDirPath() string {
	if a.modelDir != "" {
		return a.modelDir
	}
	return defaultModelDir()
}

// embedder opens the configured model lazily (weights load on first use).
// It returns an error wrapping holomem.ErrNoEmbedder when no model is
// installed or the user turned it off.
func (a *app) embedder() (holomem.Embedder, error) {
	if a.emb != nil {
		return a.emb, nil
	}
	if a.noModel || strings.EqualFold(a.modelName, "none") {
		return nil, fmt.Errorf("%w: disabled by --no-model", holomem.ErrNoEmbedder)
	}
	dir, err := findModel(a.modelDirPath(), a.modelName)
	if err != nil {
		return nil, err
	}
	e, err := embed.Open(dir, &embed.Options{
		Name:          a.modelName,
		IdleTimeout:   modelIdleTimeout,
		LoadTokenizer: loadTokenizer,
	})
	if err != nil {
		return nil, fmt.Errorf("open model %s: %w", dir, err)
	}
	a.emb = e
	return e, nil
}

func loadTokenizer(dir string) (embed.Tokenizer, error) {
	return spm.Load(dir)
}

// modelMissingHint says how to get a model, for doctor.
func (a *app) modelMissingHint() string {
	if a.noModel || strings.EqualFold(a.modelName, "none") {
		return "disabled (--no-model): recall runs on fts, jaccard and hrr"
	}
	return fmt.Sprintf("not installed: recall runs on fts, jaccard and hrr; run `holomem model pull %s` (or --model-dir DIR for a local copy)", a.modelName)
}

// findModel resolves a model name to its directory: a directory path is
// used as is; a hub name is looked up under dir.
func findModel(dir, name string) (string, error) {
	if st, err := os.Stat(name); err == nil && st.IsDir() {
		return name, nil
	}
	p := filepath.Join(dir, strings.ReplaceAll(name, "/", "__"))
	if _, err := os.Stat(filepath.Join(p, "config.json")); err != nil {
		return "", fmt.Errorf("%w: model %s is not installed in %s: run `holomem model pull %s`", holomem.ErrNoEmbedder, name, dir, name)
	}
	return p, nil
}

// defaultModelDir is $HOLOMEM_MODEL_DIR, else $XDG_DATA_HOME/holomem/models,
// else ~/.local/share/holomem/models.
func defaultModelDir() string {
	if d := os.Getenv("HOLOMEM_MODEL_DIR"); d != "" {
		return d
	}
	if d := os.Getenv("XDG_DATA_HOME"); d != "" {
		return filepath.Join(d, "holomem", "models")
	}
	if h, err := os.UserHomeDir(); err == nil {
		return filepath.Join(h, ".local", "share", "holomem", "models")
	}
	return "models"
}
