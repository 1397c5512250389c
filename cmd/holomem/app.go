package main

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"log/slog"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/spf13/cobra"

	"github.com/holomem/holomem"
	"github.com/holomem/holomem/backend"
	"github.com/holomem/holomem/embed"
	"github.com/holomem/holomem/retrieve"
)

// app holds the global flags and the lazily opened store and memory of one
// command line.
type app struct {
	stdin          io.Reader
	stdout, stderr io.Writer

	dbPath    string
	namespace string
	global    bool
	jsonOut   bool
	quiet     bool
	modelName string
	modelDir  string
	noModel   bool
	halfLife  time.Duration
	// envErr is a bad environment variable, reported when a command runs.
	envErr error
	// decayFloor is the share of a score that never decays (0: default).
	decayFloor float64
	// anchorRoot confines anchors; "" means the git project's top level.
	anchorRoot string

	// useGraph lets the memory load HNSW graphs: long-running commands
	// (serve, mcp, doctor, graph build) set it; a one-shot command scans
	// exactly rather than read every graph edge to answer one query.
	useGraph bool
	// retrievalFlush batches retrieval counts off recall's path in
	// long-running commands (serve, mcp); one-shot commands write at once.
	retrievalFlush time.Duration
	// liveIndex keeps the text index and candidate rows in memory,
	// following the store's change feed (serve, mcp).
	liveIndex bool
	// createDB lets open create a missing SQLite file: only the commands
	// annotated createsDB (init, add, import, serve, mcp, ui) may. A read
	// with a mistyped --db created an empty database and found nothing.
	createDB bool
	// oneConnection opens an SQLite store with one connection for reads
	// and writes (sqlite.WithOneConnection): recall and the prompt hook,
	// one-shot processes that read a little and write once.
	oneConnection bool

	// openMu guards the lazy store and memory: the prompt hook logs its
	// outcome while a recall that missed the deadline may still be opening.
	openMu sync.Mutex
	store  holomem.Store
	mem    *retrieve.Memory
	emb    *embed.Embedder
	// modelErr is why an installed model could not be opened: the
	// commands then run without the semantic channel, as without a model,
	// and doctor says why.
	modelErr error
	// busy, when set, is closed once a goroutine still using the store
	// (the hook's recall after its deadline) ends; close waits for it
	// in the background instead of closing the store under it.
	busy chan struct{}
	// hookStandalone keeps the hook from asking a running server
	// (hook recall --standalone).
	hookStandalone bool
	// hookRecallFn replaces the hook's recall in tests.
	hookRecallFn func(ctx context.Context, ns, prompt string, limit, budget int, minScore float64) (string, int, error)
}

func newApp(stdin io.Reader, stdout, stderr io.Writer) *app {
	return &app{stdin: stdin, stdout: stdout, stderr: stderr}
}

func (a *app) rootCommand() *cobra.Command {
	return a.rootCommandFor(nil)
}

// rootCommandFor returns the root command for running args: with only the
// subcommand args name when they name one, else with them all. Building
// all ~35 subcommands and their flags cost a prompt hook, a new process
// per prompt, ~60 page faults for commands it does not run. A command's
// help and errors only show its own subtree and the root's flags, which
// are the same either way; `holomem`, `holomem help ...` and completion
// name no subcommand and get them all.
func (a *app) rootCommandFor(args []string) *cobra.Command {
	root := a.bareRoot()
	if c := a.namedCommand(root, args); c != nil {
		root.AddCommand(c)
		return root
	}
	for _, c := range commands {
		root.AddCommand(c.new(a))
	}
	return root
}

// namedCommand returns the subcommand args run, built, or nil when they
// run the root or none. Cobra itself decides, as it will for the real
// tree (flags before the name, values of those flags, aliases): root gets
// a stub per command for its Find, and loses them again.
func (a *app) namedCommand(root *cobra.Command, args []string) *cobra.Command {
	if len(args) == 0 {
		return nil
	}
	stubs := make([]*cobra.Command, len(commands))
	for i, c := range commands {
		names := strings.Fields(c.names)
		stubs[i] = &cobra.Command{Use: names[0], Aliases: names[1:]}
	}
	root.AddCommand(stubs...)
	found, _, err := root.Find(args)
	root.ResetCommands()
	if i := slices.Index(stubs, found); err == nil && i >= 0 {
		return commands[i].new(a)
	}
	return nil
}

// bareRoot returns the root command without subcommands.
func (a *app) bareRoot() *cobra.Command {
	root := &cobra.Command{
		Use:   "holomem",
		Short: "Long-term memory for AI agents in one SQLite file",
		Long: `holomem remembers short facts and imported records and finds them again by
keyword, by meaning, by structure (holographic vectors) and by graph.

The database is --db, $HOLOMEM_DB, or ` + defaultDBPath() + `;
a postgres:// address there selects PostgreSQL. init, add, import, serve,
mcp and ui create a missing database; other commands say it is missing.
Exit codes: 0 ok, 1 error, 2 usage, 3 not found (also: no database at --db), 4 invalid input,
5 conflict, 6 unsupported database, 7 no embedding model.`,
		SilenceUsage:  true,
		SilenceErrors: true,
	}
	f := root.PersistentFlags()
	f.StringVar(&a.dbPath, "db", envOr("HOLOMEM_DB", defaultDBPath()), "database: an SQLite file, or a postgres:// address ($HOLOMEM_DB)")
	f.StringVarP(&a.namespace, "namespace", "n", os.Getenv("HOLOMEM_NAMESPACE"), "namespace ($HOLOMEM_NAMESPACE; default: the current git project, else \"default\")")
	f.BoolVar(&a.global, "global", false, "use the global namespace \"default\" even inside a git project")
	f.BoolVar(&a.jsonOut, "json", false, "print JSON")
	f.BoolVarP(&a.quiet, "quiet", "q", false, "no progress output")
	f.StringVar(&a.modelName, "model", envOr("HOLOMEM_MODEL", defaultModel), "embedding model ($HOLOMEM_MODEL; \"none\" disables the semantic channel)")
	f.StringVar(&a.modelDir, "model-dir", "", "model directory ($HOLOMEM_MODEL_DIR)")
	f.BoolVar(&a.noModel, "no-model", false, "run without the embedding model")
	if env := os.Getenv("HOLOMEM_HALF_LIFE"); env != "" {
		if err := (halfLifeFlag{&a.halfLife}).Set(env); err != nil {
			a.envErr = fmt.Errorf("$HOLOMEM_HALF_LIFE: %w", err)
		}
	}
	f.Var(halfLifeFlag{&a.halfLife}, "half-life", "age at which decay halves a fact's score, e.g. 90d or 720h ($HOLOMEM_HALF_LIFE; default 90d; history categories 3 years; negative, e.g. -1: no decay for any category)")
	f.StringVar(&a.anchorRoot, "anchor-root", os.Getenv("HOLOMEM_ANCHOR_ROOT"), "directory anchors are confined to ($HOLOMEM_ANCHOR_ROOT; default: the git project's top level)")
	f.Float64Var(&a.decayFloor, "decay-floor", 0, "share of a fact's score that never decays, 0..1 (default 0.7; negative: none)")
	root.SetFlagErrorFunc(func(_ *cobra.Command, err error) error { return &usageError{msg: err.Error()} })
	// A bad environment variable fails every command rather than being
	// silently ignored (a flag given on the command line replaces it).
	root.PersistentPreRunE = func(cmd *cobra.Command, _ []string) error {
		if a.envErr != nil && !cmd.Flags().Changed("half-life") {
			return a.envErr
		}
		for c := cmd; c != nil; c = c.Parent() {
			a.createDB = a.createDB || c.Annotations[createsDBKey] != ""
		}
		return nil
	}
	root.Version = version

	root.AddGroup(&cobra.Group{ID: "facts", Title: "Facts:"}, &cobra.Group{ID: "search", Title: "Recall:"},
		&cobra.Group{ID: "graph", Title: "Graph:"}, &cobra.Group{ID: "admin", Title: "Store and models:"},
		&cobra.Group{ID: "agents", Title: "Agents:"})
	return root
}

func envOr(key, def string) string {
	if v := os.Getenv(key); v != "" {
		return v
	}
	return def
}

// defaultDBPath is $XDG_DATA_HOME/holomem/holomem.db or ~/.local/share/holomem/holomem.db.
func defaultDBPath() string {
	if d := os.Getenv("XDG_DATA_HOME"); d != "" {
		return filepath.Join(d, "holomem", "holomem.db")
	}
	if h, err := os.UserHomeDir(); err == nil {
		return filepath.Join(h, ".local", "share", "holomem", "holomem.db")
	}
	return "holomem.db"
}

// ns returns the namespace commands use: the flag, else the git project
// of the working directory, else "default".
func (a *app) ns() string {
	if a.namespace != "" {
		return a.namespace
	}
	if a.global {
		return holomem.DefaultNamespace
	}
	if p := projectNamespace("."); p != "" {
		return p
	}
	return holomem.DefaultNamespace
}

// longRunning configures the memory of a process that serves many
// requests (serve, mcp): graphs loaded, retrieval counts batched, the text
// index kept live.
func (a *app) longRunning() {
	a.useGraph = true
	a.retrievalFlush = retrievalFlushEvery
	a.liveIndex = true
}

// open opens the store (creating it) once per command line.
func (a *app) open(ctx context.Context) (holomem.Store, error) {
	a.openMu.Lock()
	defer a.openMu.Unlock()
	return a.openLocked(ctx)
}

func (a *app) openLocked(ctx context.Context) (holomem.Store, error) {
	if a.store != nil {
		return a.store, nil
	}
	if err := a.checkDBExists(); err != nil {
		return nil, err
	}
	s, err := openStore(ctx, a.dbPath, a.oneConnection)
	if err != nil {
		return nil, fmt.Errorf("open %s: %w", displayAddr(a.dbPath), err)
	}
	a.store = s
	return s, nil
}

// createsDBKey marks, in a command's Annotations, a command that may
// create the database; createsDB is the annotation.
const createsDBKey = "holomem:creates-db"

var createsDB = map[string]string{createsDBKey: "yes"}

// errNoDatabase is the answer of a command that reads a database which
// does not exist. It is ErrNotFound (exit code 3).
type errNoDatabase struct{ path string }

func (e *errNoDatabase) Error() string {
	return fmt.Sprintf("no database at %s; run `holomem init` to create one (or check --db / $HOLOMEM_DB)", e.path)
}

func (e *errNoDatabase) Is(target error) bool { return target == holomem.ErrNotFound }

// checkDBExists refuses to open a missing SQLite file unless the command
// may create it (see createDB). PostgreSQL databases are created by their
// server, not here.
func (a *app) checkDBExists() error {
	if a.createDB || !backend.IsFile(a.dbPath) {
		return nil
	}
	p := sqlitePath(a.dbPath)
	if _, err := os.Stat(p); errors.Is(err, fs.ErrNotExist) {
		return &errNoDatabase{path: p}
	}
	return nil
}

// memory opens the store and the memory service, with the embedding model
// when one is installed.
func (a *app) memory(ctx context.Context) (*retrieve.Memory, error) {
	a.openMu.Lock()
	defer a.openMu.Unlock()
	if a.mem != nil {
		return a.mem, nil
	}
	s, err := a.openLocked(ctx)
	if err != nil {
		return nil, err
	}
	opts := retrieve.Options{
		Logger:       slog.New(slog.NewTextHandler(a.stderr, &slog.HandlerOptions{Level: slog.LevelWarn})),
		DisableGraph: !a.useGraph,
		HalfLife:     a.halfLife,
		// Bookkeeping never fails a recall; long-running processes batch it.
		RetrievalFlush: a.retrievalFlush,
		DecayFloor:     a.decayFloor,
		LiveIndex:      a.liveIndex,
	}
	if emb, err := a.embedder(); err == nil {
		opts.Embedder = emb
	} else if !errors.Is(err, holomem.ErrNoEmbedder) {
		// A damaged model degrades to the other channels, like a
		// missing one; it never takes the command down.
		a.modelErr = err
		fmt.Fprintf(a.stderr, "holomem: note: %s\n", a.modelBrokenHint())
	}
	opts.AnchorRoot = a.anchorRoot
	opts.FindAnchorRoot = func() string { return gitTopLevel(".") }
	m, err := retrieve.New(s, opts)
	if err != nil {
		return nil, err
	}
	a.mem = m
	return m, nil
}

func (a *app) close() {
	if a.busy != nil {
		select {
		case <-a.busy:
		default:
			// Closing now would pull the store from under the running
			// recall; a one-shot process exits first, which SQLite survives.
			go func() {
				<-a.busy
				a.closeNow()
			}()
			return
		}
	}
	a.closeNow()
}

func (a *app) closeNow() {
	a.openMu.Lock()
	defer a.openMu.Unlock()
	if a.mem != nil {
		a.mem.Close()
	}
	if a.emb != nil {
		a.emb.Close()
	}
	if a.store != nil {
		a.store.Close()
	}
}

// out prints v as JSON with --json, else calls human.
func (a *app) out(v any, human func(w io.Writer)) error {
	if a.jsonOut {
		enc := json.NewEncoder(a.stdout)
		enc.SetIndent("", "  ")
		return enc.Encode(v)
	}
	human(a.stdout)
	return nil
}

// printError writes err for a person (or as JSON with --json) with a hint
// of what to do next.
func (a *app) printError(err error, code int) {
	msg := err.Error()
	hint := ""
	switch code {
	case exitUsage:
		hint = "run `holomem help` for usage"
	case exitUnsupported:
		hint = "check --db; a newer holomem may be needed"
	case exitNoModel:
		hint = "run `holomem model pull` or use --no-model"
	}
	if errors.Is(err, holomem.ErrStoreMoved) {
		hint = "restart `holomem serve`/`holomem mcp` after a restore or after replacing the database file; nothing was written to the old file"
	}
	if errors.Is(err, holomem.ErrStorageFull) {
		hint = "free disk space on the database's file system (or point --db elsewhere) and retry; nothing acknowledged was lost (`holomem verify` checks the file)"
	}
	// The sentinels' "holomem: " prefix, once per wrapped error, is said
	// once, by the line below or by nobody in JSON.
	msg = strings.ReplaceAll(strings.TrimPrefix(msg, "holomem: "), ": holomem: ", ": ")
	if a.jsonOut {
		_ = json.NewEncoder(a.stderr).Encode(map[string]any{"error": msg, "exit_code": code, "hint": hint})
		return
	}
	fmt.Fprintf(a.stderr, "holomem: %s\n", msg)
	if hint != "" {
		fmt.Fprintf(a.stderr, "hint: %s\n", hint)
	}
}

func isCobraUsage(err error) bool {
	s := err.Error()
	return strings.HasPrefix(s, "unknown command") || strings.HasPrefix(s, "accepts ") ||
		strings.HasPrefix(s, "requires at least") || strings.HasPrefix(s, "unknown flag") ||
		strings.HasPrefix(s, "invalid argument")
}

func (a *app) logger() *slog.Logger {
	return slog.New(slog.NewTextHandler(a.stderr, &slog.HandlerOptions{Level: slog.LevelInfo}))
}
