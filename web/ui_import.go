package web

import (
	"archive/zip"
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"mime/multipart"
	"net/http"
	"os"
	"path"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/holomem/holomem"
)

// ImportRequest is one import started from the import page.
type ImportRequest struct {
	// Kind is "jsonl", "github" or "markdown".
	Kind      string
	Namespace string
	// Path is where the upload was saved on this machine: a file (jsonl,
	// github) or, for a markdown zip, the directory it was unpacked into.
	// It is removed when the import returns.
	Path string
	// Name is the uploaded file's name, for messages.
	Name string
	// Progress is called with the number of records stored so far.
	Progress func(done int)
}

// ImportFunc runs an import and returns its summary (one line, then one
// line per note or skipped record); see Options.Import. Imports are
// idempotent, so a failed one can be re-run; an error wrapping
// holomem.ErrInvalid says the file itself cannot be imported (nothing to
// resume), and the summary may list why line by line.
type ImportFunc func(ctx context.Context, req ImportRequest) (summary string, err error)

// Import limits.
const (
	// DefaultImportMaxBytes bounds an uploaded file.
	DefaultImportMaxBytes = 64 << 20
	// importTimeout bounds one import job.
	importTimeout = time.Hour
	// keptJobs is how many finished jobs the server remembers.
	keptJobs = 20
	// zipMaxFiles bounds the entries unpacked from a markdown zip.
	zipMaxFiles = 20000
)

// importJob is one running or finished import; the job page shows it.
type importJob struct {
	ID, Kind, Name, Namespace string
	Started                   time.Time

	mu       sync.Mutex
	done     int
	finished bool
	summary  string
	err      string
	// notes are what the upload's unpacking left out (a zip's symbolic
	// links), shown after the summary.
	notes []string
	// invalid marks an error in the file rather than in the import.
	invalid bool
}

// jobView is a consistent copy of a job for the template.
type jobView struct {
	ID, Kind, Name, Namespace string
	Started                   time.Time
	Done                      int
	Finished, Invalid         bool
	Err                       string
	// Summary is the summary's first line, Details the lines after it
	// (notes, skipped records).
	Summary string
	Details []string
}

func (j *importJob) view() jobView {
	j.mu.Lock()
	defer j.mu.Unlock()
	v := jobView{ID: j.ID, Kind: j.Kind, Name: j.Name, Namespace: j.Namespace, Started: j.Started,
		Done: j.done, Finished: j.finished, Invalid: j.invalid, Err: j.err}
	for i, l := range strings.Split(strings.TrimSpace(j.summary), "\n") {
		if l = strings.TrimSpace(l); l == "" {
			continue
		}
		if i == 0 {
			v.Summary = l
		} else {
			v.Details = append(v.Details, l)
		}
	}
	return v
}

type importJobs struct {
	mu   sync.Mutex
	jobs []*importJob
}

func newImportJobs() *importJobs { return &importJobs{} }

func (js *importJobs) add(j *importJob) {
	js.mu.Lock()
	defer js.mu.Unlock()
	js.jobs = append(js.jobs, j)
	// Forget the oldest finished jobs beyond keptJobs.
	for len(js.jobs) > keptJobs {
		i := slices.IndexFunc(js.jobs, func(j *importJob) bool { return j.view().Finished })
		if i < 0 {
			break
		}
		js.jobs = slices.Delete(js.jobs, i, i+1)
	}
}

func (js *importJobs) get(id string) *importJob {
	js.mu.Lock()
	defer js.mu.Unlock()
	for _, j := range js.jobs {
		if j.ID == id {
			return j
		}
	}
	return nil
}

func (js *importJobs) list() []jobView {
	js.mu.Lock()
	defer js.mu.Unlock()
	out := make([]jobView, 0, len(js.jobs))
	for i := len(js.jobs) - 1; i >= 0; i-- {
		out = append(out, js.jobs[i].view())
	}
	return out
}

type importData struct {
	Enabled bool
	MaxMiB  int64
	Jobs    []jobView
}

func (s *Server) importMax() int64 {
	if s.opts.ImportMaxBytes > 0 {
		return s.opts.ImportMaxBytes
	}
	return DefaultImportMaxBytes
}

func (s *Server) handleImportPage(w http.ResponseWriter, r *http.Request, p *page) error {
	p.Title, p.Nav = "Import", "import"
	p.Data = &importData{Enabled: s.opts.Import != nil, MaxMiB: s.importMax() >> 20, Jobs: s.ui.imports.list()}
	return s.render(w, r, "import", p)
}

// handleImportForm saves the upload, starts the import in the background
// and redirects to the job's progress page.
func (s *Server) handleImportForm(w http.ResponseWriter, r *http.Request, p *page) error {
	if s.opts.Import == nil {
		return fmt.Errorf("%w: this server was started without imports", holomem.ErrInvalid)
	}
	if r.MultipartForm == nil {
		return fmt.Errorf("%w: the upload could not be read: send one file as multipart/form-data, at most %d MiB", holomem.ErrInvalid, s.importMax()>>20)
	}
	fhs := r.MultipartForm.File["file"]
	if len(fhs) != 1 {
		return fmt.Errorf("%w: choose one file to import", holomem.ErrInvalid)
	}
	fh := fhs[0]
	kind := s.formValue(r, "kind")
	if kind == "" || kind == "auto" {
		kind = kindOf(fh.Filename)
	}
	ns := strings.TrimSpace(s.formValue(r, "namespace"))
	if ns == "" {
		ns = p.Namespace
	}
	tmp, err := os.MkdirTemp("", "holomem-import-")
	if err != nil {
		return fmt.Errorf("import: %w", err)
	}
	target, notes, err := saveUpload(fh, kind, tmp, s.importMax())
	if err != nil {
		os.RemoveAll(tmp)
		return err
	}
	id := make([]byte, 8)
	rand.Read(id) //nolint:errcheck // never fails
	j := &importJob{ID: hex.EncodeToString(id), Kind: kind, Name: fh.Filename, Namespace: ns, Started: time.Now(), notes: notes}
	s.ui.imports.add(j)
	go s.runImport(j, ImportRequest{Kind: kind, Namespace: ns, Path: target, Name: fh.Filename}, tmp)
	return seeOther(w, r, "/import/"+j.ID)
}

// runImport runs one job detached from the request that started it.
func (s *Server) runImport(j *importJob, req ImportRequest, tmp string) {
	defer os.RemoveAll(tmp)
	ctx, cancel := context.WithTimeout(context.Background(), importTimeout)
	defer cancel()
	req.Progress = func(done int) {
		j.mu.Lock()
		j.done = done
		j.mu.Unlock()
	}
	sum, err := s.opts.Import(ctx, req)
	j.mu.Lock()
	defer j.mu.Unlock()
	j.finished, j.summary = true, sum
	if len(j.notes) > 0 {
		j.summary = strings.TrimSpace(sum + "\n" + strings.Join(j.notes, "\n"))
	}
	if err != nil {
		j.err = strings.ReplaceAll(err.Error(), "holomem: ", "")
		if j.invalid = errors.Is(err, holomem.ErrInvalid); j.invalid {
			// The page says "Nothing imported:" instead.
			j.err = strings.TrimPrefix(j.err, "invalid input: ")
		}
		s.log.Warn("web import", "file", req.Name, "err", err)
	}
}

// kindOf guesses the import kind from a file name.
func kindOf(name string) string {
	switch strings.ToLower(path.Ext(name)) {
	case ".zip":
		return "markdown"
	case ".json":
		return "github"
	}
	return "jsonl"
}

// saveUpload writes the upload under dir and returns the path to import:
// the file itself, or for markdown the directory the zip was unpacked into,
// with notes on the zip entries left out.
func saveUpload(fh *multipart.FileHeader, kind, dir string, limit int64) (string, []string, error) {
	src, err := fh.Open()
	if err != nil {
		return "", nil, fmt.Errorf("read upload: %w", err)
	}
	defer src.Close()
	switch kind {
	case "jsonl", "github":
		dst := filepath.Join(dir, "upload")
		return dst, nil, writeFile(dst, src, limit)
	case "markdown":
		ra, ok := src.(io.ReaderAt)
		if !ok {
			return "", nil, fmt.Errorf("%w: the zip upload cannot be read randomly", errBadRequest)
		}
		root := filepath.Join(dir, "notes")
		notes, err := unzipMarkdown(ra, fh.Size, root, limit)
		return root, notes, err
	}
	return "", nil, fmt.Errorf("%w: unknown import kind %q: use jsonl, github or markdown (a zip of notes)", holomem.ErrInvalid, kind)
}

func writeFile(dst string, r io.Reader, limit int64) error {
	f, err := os.OpenFile(dst, os.O_CREATE|os.O_EXCL|os.O_WRONLY, 0o600)
	if err != nil {
		return fmt.Errorf("save upload: %w", err)
	}
	n, err := io.Copy(f, io.LimitReader(r, limit+1))
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		return fmt.Errorf("save upload: %w", err)
	}
	if n > limit {
		return fmt.Errorf("%w: the file is larger than %d bytes", errTooLarge, limit)
	}
	return nil
}

// unzipMarkdown unpacks the .md files of a zip under root. Entry names
// that would escape root, and archives that unpack to more than limit
// bytes or zipMaxFiles files, are refused. Entries that are not regular
// files (a symbolic link, whose stored text is its target) are left out,
// each with a note.
func unzipMarkdown(ra io.ReaderAt, size int64, root string, limit int64) ([]string, error) {
	zr, err := zip.NewReader(ra, size)
	if err != nil {
		return nil, fmt.Errorf("%w: not a zip file: %v", holomem.ErrInvalid, err)
	}
	if len(zr.File) > zipMaxFiles {
		return nil, fmt.Errorf("%w: the zip holds %d entries; at most %d", holomem.ErrInvalid, len(zr.File), zipMaxFiles)
	}
	var total int64
	var notes []string
	n := 0
	for _, zf := range zr.File {
		name := zf.Name
		if zf.FileInfo().IsDir() || !isMarkdownName(name) {
			continue
		}
		if !zf.Mode().IsRegular() {
			what := "not a regular file"
			if zf.Mode()&fs.ModeSymlink != 0 {
				what = "a symbolic link"
			}
			notes = append(notes, fmt.Sprintf("skipped zip entry %s: %s (only regular files are imported)", name, what))
			continue
		}
		clean := path.Clean(strings.ReplaceAll(name, "\\", "/"))
		if path.IsAbs(clean) || clean == ".." || strings.HasPrefix(clean, "../") {
			return notes, fmt.Errorf("%w: zip entry %q points outside the archive", holomem.ErrInvalid, name)
		}
		dst := filepath.Join(root, filepath.FromSlash(clean))
		if err := os.MkdirAll(filepath.Dir(dst), 0o700); err != nil {
			return notes, fmt.Errorf("unzip: %w", err)
		}
		rc, err := zf.Open()
		if err != nil {
			return notes, fmt.Errorf("%w: zip entry %q: %v", holomem.ErrInvalid, name, err)
		}
		err = writeFile(dst, rc, limit-total)
		rc.Close()
		if err != nil {
			return notes, err
		}
		fi, err := os.Stat(dst)
		if err != nil {
			return notes, fmt.Errorf("unzip: %w", err)
		}
		total += fi.Size()
		n++
	}
	if n == 0 {
		if len(notes) > 0 {
			return notes, fmt.Errorf("%w: the zip holds no .md files that are regular files (%s)", holomem.ErrInvalid, strings.Join(notes, "; "))
		}
		return notes, fmt.Errorf("%w: the zip holds no .md files", holomem.ErrInvalid)
	}
	return notes, nil
}

func isMarkdownName(name string) bool {
	ext := strings.ToLower(path.Ext(name))
	return ext == ".md" || ext == ".markdown"
}

func (s *Server) handleJobPage(w http.ResponseWriter, r *http.Request, p *page) error {
	j := s.ui.imports.get(r.PathValue("job"))
	if j == nil {
		return fmt.Errorf("import job %q: %w (the server keeps the last %d)", r.PathValue("job"), holomem.ErrNotFound, keptJobs)
	}
	v := j.view()
	p.Title, p.Nav, p.Data = "Import "+v.Name, "import", v
	if !v.Finished {
		// Works without JavaScript: the browser reloads the page.
		p.Refresh = 1
	}
	return s.render(w, r, "job", p)
}
