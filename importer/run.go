package importer

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"slices"
	"sort"
	"strings"

	"github.com/holomem/holomem"
)

// Batch is how many facts one [Run] stores per transaction.
const Batch = 500

// ErrUnknownKind is returned by [Run] for a kind it cannot import.
var ErrUnknownKind = errors.New("unknown import kind: use jsonl, markdown, github or git")

// Importer stores batches of facts with their derived data (HRR vectors,
// embeddings, the in-memory index), preparing each batch while the one
// before is written: retrieve.Memory's ImportBatches.
type Importer interface {
	ImportBatches(ctx context.Context, done func(facts []*holomem.Fact, created []bool)) holomem.ImportBatches
}

// Options say what [Run] imports and where.
type Options struct {
	// Kind is jsonl, markdown (or md), github or git.
	Kind string
	// Path is the file, folder or repository; "-" reads Stdin (jsonl, github).
	Path  string
	Stdin io.Reader
	// Namespace receives the facts. A jsonl import keeps each fact's
	// exported namespace unless Into is set.
	Namespace string
	// Into puts every fact of a jsonl import into this namespace.
	Into string
	// Repo is the GitHub owner/repo: github when the JSON has no URLs,
	// git for the #N of commit messages (default: origin's).
	Repo string
	// Temporal adds git's temporal edges between consecutive commits of a file.
	Temporal bool
	// ChunkTokens bounds each chunk of a markdown import (see [Markdown]);
	// 0 means [DefaultChunkTokens].
	ChunkTokens int
	// Progress (may be nil) gets "import KIND" with the facts stored so far.
	Progress holomem.Progress
}

// Report is what [Run] did.
type Report struct {
	Kind     string `json:"kind"`
	Path     string `json:"path"`
	Records  int    `json:"records"`
	Created  int    `json:"created"`
	Existing int    `json:"existing"`
	// Updated counts the existing document chunks whose content changed
	// (markdown); Removed the chunks a re-imported document no longer has.
	Updated    int     `json:"updated,omitempty"`
	Removed    int     `json:"removed,omitempty"`
	Edges      int     `json:"edges_created"`
	Unresolved int     `json:"links_unresolved"`
	Summary    Summary `json:"summary"`
}

// Run imports o.Path into the memory: it parses with the importer of
// o.Kind, stores the facts in batches of [Batch] through mem (so vectors
// and indexes stay in step), then resolves every link by key (this
// import's keys first, then external keys already in the namespace) and
// stores the edges. Imports with a pattern of origin get a per-pattern
// origin ("import:keyword") so doctor sees when one pattern stops
// producing edges. A github import also links commits imported earlier
// whose messages name its issues. A markdown import also brings the
// stored chunks of the documents it read in line with them: changed chunks
// are updated in place (same id, trust and feedback), chunks a document no
// longer has are forgotten, and next-chunk edges that no longer join
// neighbours are removed. Run stops when ctx is done; an
// interrupted import is resumed by running it again (keys make it
// idempotent). CLI, web and MCP share it.
func Run(ctx context.Context, mem Importer, store holomem.ImportStore, o Options) (*Report, error) {
	r := &run{store: store, ns: o.Namespace, keys: map[string]int64{}, progress: o.Progress, phase: "import " + o.Kind}
	if r.progress == nil {
		r.progress = func(string, int, int) {}
	}
	r.batches = mem.ImportBatches(ctx, r.stored)
	defer r.batches.Wait() // an error return with batches in flight
	if o.Kind == "jsonl" {
		r.keepNamespace = o.Into == ""
		if o.Into != "" {
			r.ns = o.Into
		}
	}
	add := func(rec Record) error { return r.add(ctx, rec) }
	open := func() (io.ReadCloser, error) {
		if o.Path == "-" {
			if o.Stdin == nil {
				return nil, fmt.Errorf("%w: no standard input to read", holomem.ErrInvalid)
			}
			return io.NopCloser(o.Stdin), nil
		}
		f, err := os.Open(o.Path)
		if err != nil {
			return nil, fmt.Errorf("%w: %v", holomem.ErrInvalid, err)
		}
		return f, nil
	}
	var sum Summary
	var err error
	switch o.Kind {
	case "jsonl", "github":
		rc, err := open()
		if err != nil {
			return nil, err
		}
		defer rc.Close()
		br := bufio.NewReaderSize(rc, 1<<20)
		if o.Kind == "jsonl" {
			sum, err = JSONL(br, add)
		} else {
			sum, err = GitHub(br, o.Repo, add)
		}
		if err != nil {
			return nil, fmt.Errorf("import %s %s: %w", o.Kind, o.Path, err)
		}
	case "markdown", "md":
		if sum, err = Markdown(ctx, o.Path, add, DocOptions{ChunkTokens: o.ChunkTokens}); err != nil {
			return nil, fmt.Errorf("import markdown %s: %w", o.Path, err)
		}
	case "git":
		if sum, err = Git(ctx, o.Path, add, GitOptions{Temporal: o.Temporal, Repo: o.Repo}); err != nil {
			return nil, fmt.Errorf("import git %s: %w", o.Path, err)
		}
	default:
		return nil, fmt.Errorf("%q: %w", o.Kind, ErrUnknownKind)
	}
	if err := r.flush(ctx); err != nil {
		return nil, err
	}
	if err := r.batches.Wait(); err != nil {
		return nil, storeErr(err)
	}
	if o.Kind == "github" {
		if err := r.commitLinks(ctx); err != nil {
			return nil, err
		}
	}
	if err := r.refreshDocs(ctx, mem, &sum); err != nil {
		return nil, err
	}
	if err := r.link(ctx); err != nil {
		return nil, err
	}
	if err := r.unlinkStaleChunks(ctx); err != nil {
		return nil, err
	}
	if o.Kind == "git" && r.unresolved > 0 {
		sum.Notes = append(sum.Notes, fmt.Sprintf("%d links name issues not in namespace %q yet; importing them (holomem import github) makes these edges", r.unresolved, r.ns))
	}
	return &Report{
		Kind: o.Kind, Path: o.Path, Records: sum.Records, Created: r.created, Existing: r.existing,
		Updated: r.updated, Removed: r.removed, Edges: r.edges, Unresolved: r.unresolved, Summary: sum,
	}, nil
}

// run stores an importer's records in batches and then its links.
type run struct {
	batches       holomem.ImportBatches
	store         holomem.ImportStore
	ns            string
	keepNamespace bool
	progress      holomem.Progress
	phase         string

	pending []Record
	// queued are the batches given to r.batches and not stored yet, in
	// order: stored takes their keys from here.
	queued   [][]Record
	links    []Link
	keys     map[string]int64
	created  int
	existing int

	edges, unresolved int

	// Documents (markdown): what each chunk should hold, keyed by key;
	// the stored chunks that differ; the documents of this import and
	// those whose chunks were added or removed.
	want             map[string]holomem.Fact
	changed          []int64
	docs             map[string]bool
	reshaped         map[string]bool
	docOf            map[int64]string
	updated, removed int
}

func (r *run) add(ctx context.Context, rec Record) error {
	if err := ctx.Err(); err != nil {
		return err
	}
	r.links = append(r.links, rec.Links...)
	if rec.Fact == nil {
		return nil
	}
	if !r.keepNamespace || rec.Fact.Namespace == "" {
		rec.Fact.Namespace = r.ns
	}
	if rec.Doc != "" {
		// The store loads an existing chunk over rec.Fact: keep what the
		// document says now to compare.
		if r.want == nil {
			r.want, r.docs, r.reshaped, r.docOf = map[string]holomem.Fact{}, map[string]bool{}, map[string]bool{}, map[int64]string{}
		}
		r.want[rec.Key] = holomem.Fact{Content: rec.Fact.Content, Category: rec.Fact.Category, Tags: rec.Fact.Tags}
		r.docs[rec.Doc] = true
	}
	r.pending = append(r.pending, rec)
	if len(r.pending) >= Batch {
		return r.flush(ctx)
	}
	return nil
}

// flush hands the pending records to r.batches, which stores them while
// the next batch is parsed and prepared.
func (r *run) flush(ctx context.Context) error {
	if len(r.pending) == 0 {
		return nil
	}
	facts := make([]*holomem.Fact, len(r.pending))
	for i, rec := range r.pending {
		facts[i] = rec.Fact
	}
	r.queued = append(r.queued, r.pending)
	r.pending = nil
	if err := r.batches.Add(facts); err != nil {
		return storeErr(err)
	}
	return nil
}

// stored takes the results of the oldest queued batch (r.batches calls it
// in order): the keys of its facts, the counts and the progress.
func (r *run) stored(facts []*holomem.Fact, created []bool) {
	recs := r.queued[0]
	r.queued = r.queued[1:]
	for i, rec := range recs {
		r.keys[rec.Key] = facts[i].ID
		if created[i] {
			r.created++
		} else {
			r.existing++
		}
		if rec.Doc != "" {
			r.docOf[facts[i].ID] = rec.Doc
			w := r.want[rec.Key]
			switch {
			case created[i]:
				r.reshaped[rec.Doc] = true
			case facts[i].Content != w.Content || facts[i].Category != w.Category || !slices.Equal(facts[i].Tags, w.Tags):
				r.changed = append(r.changed, facts[i].ID)
			}
		}
	}
	r.progress(r.phase, r.created+r.existing, 0)
}

func storeErr(err error) error {
	return fmt.Errorf("store facts (run the import again to resume): %w", err)
}

// commitLinks adds the links from the issues of this import to commits
// imported before them, which could not link then: the commit messages
// are read again with [CommitLinks]. Bare #N references of a commit whose
// repository is not on GitHub name this import's repository when it has
// exactly one.
func (r *run) commitLinks(ctx context.Context) error {
	repos := map[string]bool{}
	for k := range r.keys {
		if rest, ok := strings.CutPrefix(k, "github:"); ok {
			if i := strings.LastIndexByte(rest, '#'); i > 0 {
				repos[rest[:i]] = true
			}
		}
	}
	if len(repos) == 0 {
		return nil
	}
	only := ""
	if len(repos) == 1 {
		for k := range repos {
			only = k
		}
	}
	ns, cat, src := r.ns, CategoryCommit, SourceGit
	var after int64
	for {
		fs, _, err := r.store.FindFacts(ctx, holomem.FactFilter{Namespace: &ns, Category: &cat, Source: &src, AfterID: after, Limit: 1000, IncludeSuperseded: true})
		if err != nil {
			return fmt.Errorf("link earlier commits: %w", err)
		}
		if len(fs) == 0 {
			return nil
		}
		for _, f := range fs {
			after = f.ID
			repo := CommitRepo(f.ExternalKey)
			if !strings.Contains(repo, "/") {
				repo = only
			}
			for _, l := range CommitLinks(repo, f.ExternalKey, f.Content) {
				if _, ok := r.keys[l.FromKey]; ok {
					r.links = append(r.links, l)
				}
			}
		}
	}
}

// resolve maps a link end to a fact id: a key of this import, else an
// external key already in the store.
func (r *run) resolve(ctx context.Context, key string) int64 {
	if id, ok := r.keys[key]; ok {
		return id
	}
	if f, err := r.store.FindFactByExternalKey(ctx, r.ns, key); err == nil {
		r.keys[key] = f.ID
		return f.ID
	}
	return 0
}

func (r *run) link(ctx context.Context) error {
	// Links with their exported time go first, so a link derived from the
	// same data (a superseded_by field) does not stamp the edge with now.
	sort.SliceStable(r.links, func(i, j int) bool {
		return !r.links[i].CreatedAt.IsZero() && r.links[j].CreatedAt.IsZero()
	})
	var batch []*holomem.Edge
	for _, l := range r.links {
		if err := ctx.Err(); err != nil {
			return err
		}
		from, to := r.resolve(ctx, l.FromKey), r.resolve(ctx, l.ToKey)
		if from == 0 || to == 0 || from == to {
			r.unresolved++
			continue
		}
		origin := l.Origin
		if origin == holomem.OriginImport && l.Reason != "" {
			// Per-pattern origins let doctor notice when one pattern stops
			// producing edges (docs/design.md §6: edge liveness).
			origin += ":" + strings.SplitN(l.Reason, ",", 2)[0]
		}
		weight := l.Weight
		if weight == 0 {
			weight = 1
		}
		batch = append(batch, &holomem.Edge{From: from, To: to, Kind: l.Kind, Weight: weight, Origin: origin, CreatedAt: l.CreatedAt})
	}
	if len(batch) > 0 {
		n, err := r.store.CreateEdges(ctx, batch)
		if err != nil {
			return fmt.Errorf("store edges (run the import again to resume): %w", err)
		}
		r.edges += n
	}
	return nil
}

// editor changes and forgets facts with their derived data (vectors,
// indexes): retrieve.Memory. Without it [Run] writes through the store.
type editor interface {
	Update(ctx context.Context, id int64, upd holomem.FactUpdate) (*holomem.Fact, error)
	Forget(ctx context.Context, id int64) error
}

// refreshDocs brings the stored chunks of the documents of this import in
// line with them: a chunk whose content changed is updated in place (same
// id, trust and feedback), a chunk the document no longer has is
// forgotten. Chunks of documents this import did not read are left alone.
func (r *run) refreshDocs(ctx context.Context, mem Importer, sum *Summary) error {
	if len(r.docs) == 0 {
		return nil
	}
	ed, _ := mem.(editor)
	idKey := make(map[int64]string, len(r.keys))
	for k, id := range r.keys {
		idKey[id] = k
	}
	for _, id := range r.changed {
		w := r.want[idKey[id]]
		upd := holomem.FactUpdate{Content: &w.Content, Category: &w.Category, Tags: &w.Tags}
		var err error
		if ed != nil {
			_, err = ed.Update(ctx, id, upd)
		} else {
			_, err = r.store.UpdateFact(ctx, id, upd)
		}
		switch {
		case errors.Is(err, holomem.ErrConflict):
			sum.skip(idKey[id], 0, "changed chunk not updated: %v", err)
		case err != nil:
			return fmt.Errorf("update chunk %s (run the import again to resume): %w", idKey[id], err)
		default:
			r.updated++
		}
	}
	ns, src := r.ns, SourceMarkdown
	var gone []*holomem.Fact
	var after int64
	for {
		fs, _, err := r.store.FindFacts(ctx, holomem.FactFilter{Namespace: &ns, Source: &src, AfterID: after, Limit: 1000, IncludeSuperseded: true, Lean: true})
		if err != nil {
			return fmt.Errorf("find vanished chunks: %w", err)
		}
		if len(fs) == 0 {
			break
		}
		for _, f := range fs {
			after = f.ID
			if _, ok := r.keys[f.ExternalKey]; ok {
				continue
			}
			if doc := chunkDoc(f.ExternalKey, r.docs); doc != "" {
				gone = append(gone, f)
				r.reshaped[doc] = true
			}
		}
	}
	for _, f := range gone {
		var err error
		if ed != nil {
			err = ed.Forget(ctx, f.ID)
		} else {
			err = r.store.DeleteFact(ctx, f.ID)
		}
		if err != nil && !errors.Is(err, holomem.ErrNotFound) {
			return fmt.Errorf("forget vanished chunk %s (run the import again to resume): %w", f.ExternalKey, err)
		}
		r.removed++
	}
	return nil
}

// chunkDoc returns the document of docs that key is a chunk key of
// ([MarkdownKey]: the document's key, or it followed by "#" and a slug
// path, which never holds '.' or '#'), or "".
func chunkDoc(key string, docs map[string]bool) string {
	if docs[key] {
		return key
	}
	for i := len(key) - 1; i >= 0; i-- {
		if key[i] == '#' {
			if docs[key[:i]] && !strings.ContainsAny(key[i+1:], ".#") {
				return key[:i]
			}
			return ""
		}
	}
	return ""
}

// unlinkStaleChunks removes the next-chunk edges that no longer join
// neighbours: in a document that gained or lost chunks, the edge that
// joined the two chunks around the change.
func (r *run) unlinkStaleChunks(ctx context.Context) error {
	if len(r.reshaped) == 0 {
		return nil
	}
	wanted := map[[2]int64]bool{}
	for _, l := range r.links {
		if l.Reason == ReasonNextChunk {
			wanted[[2]int64{r.keys[l.FromKey], r.keys[l.ToKey]}] = true
		}
	}
	origin := holomem.OriginImport + ":" + ReasonNextChunk
	ids := make([]int64, 0, len(r.docOf))
	for id, doc := range r.docOf {
		if r.reshaped[doc] {
			ids = append(ids, id)
		}
	}
	slices.Sort(ids)
	for _, id := range ids {
		es, err := r.store.FindEdges(ctx, holomem.EdgeFilter{From: id, Kinds: []holomem.EdgeKind{holomem.EdgeTemporal}, Origin: origin})
		if err != nil {
			return fmt.Errorf("find chunk edges: %w", err)
		}
		for _, e := range es {
			if wanted[[2]int64{e.From, e.To}] {
				continue
			}
			if err := r.store.DeleteEdge(ctx, e.From, e.To, e.Kind); err != nil && !errors.Is(err, holomem.ErrNotFound) {
				return fmt.Errorf("remove stale chunk edge: %w", err)
			}
		}
	}
	return nil
}
