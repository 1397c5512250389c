package main

import (
	"errors"
	"fmt"
	"path/filepath"
	"strings"
	"time"

	"github.com/holomem/holomem"
	"github.com/holomem/holomem/embed"
	"github.com/holomem/holomem/hub"
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
	revision := ""
	if ms, err := hub.List(filepath.Dir(dir)); err == nil {
		for _, m := range ms {
			if m.Dir == dir && m.Commit != "" {
				revision = m.Commit[:min(12, len(m.Commit))]
			}
		}
	}
	e, err := embed.Open(dir, &embed.Options{
		Name:          a.modelName,
		Revision:      revision,
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

// modelBrokenHint says that the installed model cannot be used, why, and
// how to fix it, for the note every command prints and for doctor.
func (a *app) modelBrokenHint() string {
	return fmt.Sprintf("unusable: %v; recall runs on fts, jaccard and hrr; reinstall it with `holomem model pull %s` (or --no-model to silence this)", a.modelErr, a.modelName)
}

// findModel resolves a model name (a hub repo id or a directory) to its
// directory; a missing model is ErrNoEmbedder, which recall treats as "run
// without the semantic channel".
func findModel(dir, name string) (string, error) {
	p, err := hub.Find(dir, name)
	if errors.Is(err, holomem.ErrNotFound) {
		return "", fmt.Errorf("%w: %v", holomem.ErrNoEmbedder, err)
	}
	return p, err
}

// defaultModelDir is where models are installed (see hub.DefaultDir).
func defaultModelDir() string { return hub.DefaultDir() }
