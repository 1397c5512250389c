package hub

import (
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/holomem/holomem/internal/leaf/safefile"

	"github.com/holomem/holomem/errs"
)

// ManifestFile is the name of the manifest [Client.Pull] writes last into a
// model's directory. A directory without it is an unfinished pull.
const ManifestFile = "manifest.json"

// Manifest describes an installed model: what was pulled, from which
// commit, and the files with their sizes and checksums.
type Manifest struct {
	Repo     string `json:"repo"`
	Revision string `json:"revision"`
	// Commit is the commit sha the revision resolved to ("" when the hub
	// did not say).
	Commit   string    `json:"commit,omitempty"`
	Files    []File    `json:"files"`
	PulledAt time.Time `json:"pulled_at"`
	// Dir is the model's local directory. It is not stored: List, Find and
	// Pull fill it in.
	Dir string `json:"-"`
}

// File is one downloaded file of a [Manifest].
type File struct {
	// Path is relative to the model directory, with forward slashes.
	Path string `json:"path"`
	Size int64  `json:"size"`
	// SHA256 is the hex SHA-256 of the content, computed while downloading
	// and checked against the hub's LFS oid when the file is in LFS.
	SHA256 string `json:"sha256"`
	// GitOID is the hub's git blob id of a non-LFS file (checked while
	// downloading), "" otherwise.
	GitOID string `json:"git_oid,omitempty"`
	// LFS reports whether the hub stores the file in LFS.
	LFS bool `json:"lfs,omitempty"`
}

// DirName returns the directory name of a repo inside a model directory:
// the repo id with "/" replaced by "__", so
// "sentence-transformers/all-MiniLM-L6-v2" lives in
// "sentence-transformers__all-MiniLM-L6-v2".
func DirName(repo string) string {
	return strings.ReplaceAll(repo, "/", "__")
}

// DefaultDir returns where models are installed: $HOLOMEM_MODEL_DIR, else
// $XDG_DATA_HOME/holomem/models, else ~/.local/share/holomem/models. If no
// home directory is known it returns "holomem-models" (relative to the
// working directory).
func DefaultDir() string {
	if d := os.Getenv("HOLOMEM_MODEL_DIR"); d != "" {
		return d
	}
	if d := os.Getenv("XDG_DATA_HOME"); d != "" {
		return filepath.Join(d, "holomem", "models")
	}
	if h, err := os.UserHomeDir(); err == nil && h != "" {
		return filepath.Join(h, ".local", "share", "holomem", "models")
	}
	return "holomem-models"
}

// readManifest reads the manifest in a model directory.
func readManifest(modelDir string) (*Manifest, error) {
	data, err := safefile.ReadFile(filepath.Join(modelDir, ManifestFile), 1<<20)
	if err != nil {
		return nil, err
	}
	var m Manifest
	if err := json.Unmarshal(data, &m); err != nil {
		return nil, fmt.Errorf("read %s: %w", filepath.Join(modelDir, ManifestFile), err)
	}
	m.Dir = modelDir
	return &m, nil
}

// writeManifest writes the manifest atomically (temp file and rename), so a
// crash never leaves a half-written one.
func writeManifest(m *Manifest) error {
	data, err := json.MarshalIndent(m, "", "  ")
	if err != nil {
		return err
	}
	return writeFileAtomic(filepath.Join(m.Dir, ManifestFile), append(data, '\n'))
}

func writeFileAtomic(path string, data []byte) error {
	tmp, err := os.CreateTemp(filepath.Dir(path), ".tmp-*")
	if err != nil {
		return err
	}
	defer os.Remove(tmp.Name()) // no-op after the rename
	if _, err := tmp.Write(data); err != nil {
		tmp.Close()
		return err
	}
	if err := tmp.Sync(); err != nil {
		tmp.Close()
		return err
	}
	if err := tmp.Close(); err != nil {
		return err
	}
	return os.Rename(tmp.Name(), path)
}

// List returns the models installed in dir (one subdirectory with a
// manifest each), sorted by repo. A missing dir holds no models. A
// subdirectory without a manifest (an unfinished pull) is left out; an
// unreadable manifest is an error naming the file.
func List(dir string) ([]Manifest, error) {
	entries, err := os.ReadDir(dir)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, fmt.Errorf("list models: %w", err)
	}
	var out []Manifest
	for _, e := range entries {
		if !e.IsDir() {
			continue
		}
		m, err := readManifest(filepath.Join(dir, e.Name()))
		if errors.Is(err, fs.ErrNotExist) {
			continue
		}
		if err != nil {
			return nil, fmt.Errorf("list models: %w", err)
		}
		out = append(out, *m)
	}
	slices.SortFunc(out, func(a, b Manifest) int { return strings.Compare(a.Repo, b.Repo) })
	return out, nil
}

// Find returns the local directory of a model. name is either a directory
// path holding a model (its config.json) or a repo id installed in dir
// ("owner/name", or just "name" when one installed repo has it). A model
// that is not installed is an error wrapping [errs.ErrNotFound] that
// says to run `holomem model pull NAME`.
func Find(dir, name string) (string, error) {
	if name == "" {
		return "", fmt.Errorf("find model: empty name: %w", errs.ErrInvalid)
	}
	if st, err := os.Stat(name); err == nil && st.IsDir() {
		if _, err := os.Stat(filepath.Join(name, "config.json")); err != nil {
			return "", fmt.Errorf("find model: directory %s has no config.json: %w", name, errs.ErrNotFound)
		}
		return name, nil
	}
	if validRepo(name) == nil {
		modelDir := filepath.Join(dir, DirName(name))
		if installed(modelDir) {
			return modelDir, nil
		}
	}
	if !strings.Contains(name, "/") {
		ms, err := List(dir)
		if err != nil {
			return "", fmt.Errorf("find model: %w", err)
		}
		var hits []string
		for _, m := range ms {
			if _, short, _ := strings.Cut(m.Repo, "/"); strings.EqualFold(short, name) || strings.EqualFold(m.Repo, name) {
				hits = append(hits, m.Dir)
			}
		}
		switch len(hits) {
		case 1:
			return hits[0], nil
		case 0:
		default:
			return "", fmt.Errorf("find model: %q matches %d installed models, give owner/name: %w", name, len(hits), errs.ErrInvalid)
		}
	}
	if validRepo(name) != nil {
		return "", fmt.Errorf("find model: no model directory at %s and not a repo id: %w", name, errs.ErrNotFound)
	}
	return "", fmt.Errorf("model %q is not installed in %s (run: holomem model pull %s): %w", name, dir, name, errs.ErrNotFound)
}

// installed reports whether a model directory is complete: it has a
// manifest, or (copied by hand) both config.json and model.safetensors.
// Pull writes model.safetensors after the small files and the manifest last.
func installed(modelDir string) bool {
	exists := func(name string) bool {
		_, err := os.Stat(filepath.Join(modelDir, name))
		return err == nil
	}
	return exists(ManifestFile) || exists("config.json") && exists("model.safetensors")
}
