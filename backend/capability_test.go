package backend_test

import (
	"go/ast"
	"go/parser"
	"go/token"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/holomem/holomem"
	"github.com/holomem/holomem/backend"
	"github.com/holomem/holomem/internal/testkit/pgtest"
)

// capabilityDocs returns the doc comment of each interface store.go
// declares, by name.
func capabilityDocs(t *testing.T) map[string]string {
	t.Helper()
	f, err := parser.ParseFile(token.NewFileSet(), filepath.Join("..", "store.go"), nil, parser.ParseComments|parser.SkipObjectResolution)
	if err != nil {
		t.Fatal(err)
	}
	docs := map[string]string{}
	for _, d := range f.Decls {
		g, ok := d.(*ast.GenDecl)
		if !ok || g.Tok != token.TYPE {
			continue
		}
		for _, spec := range g.Specs {
			ts := spec.(*ast.TypeSpec)
			doc := ts.Doc
			if doc == nil {
				doc = g.Doc
			}
			docs[ts.Name.Name] = strings.Join(strings.Fields(doc.Text()), " ")
		}
	}
	return docs
}

var implementedBy = regexp.MustCompile(`Implemented by ([^.]*)\.`)

// claimed returns the backends a capability's doc says implement it.
func claimed(doc string) []string {
	m := implementedBy.FindStringSubmatch(doc)
	if m == nil {
		return nil
	}
	clause := regexp.MustCompile(`\([^)]*\)`).ReplaceAllString(m[1], "")
	var out []string
	for _, b := range []string{"sqlite", "postgres"} {
		if strings.Contains(clause, b) {
			out = append(out, b)
		}
	}
	return out
}

// TestCapabilities_MatchTheContract opens each backend, lists its optional
// capabilities by type assertion and checks them against what store.go
// says ("Implemented by ..."): a backend that gains or loses one without
// the contract saying so fails, and so does a capability SQLite has and
// PostgreSQL lacks when its doc does not say why (it must mention
// PostgreSQL beyond the "Implemented by" sentence).
func TestCapabilities_MatchTheContract(t *testing.T) {
	docs := capabilityDocs(t)
	has := map[string][]string{}
	s, err := backend.Open(t.Context(), filepath.Join(t.TempDir(), "caps.db"), backend.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	has["sqlite"] = holomem.CapabilitiesOf(s)
	backends := []string{"sqlite"}
	if addr := pgtestAddr(t); addr != "" {
		p, err := backend.Open(t.Context(), addr, backend.Options{})
		if err != nil {
			t.Fatal(err)
		}
		defer p.Close()
		has["postgres"] = holomem.CapabilitiesOf(p)
		backends = append(backends, "postgres")
	}
	for _, c := range holomem.Capabilities {
		doc, ok := docs[c.Name]
		if !ok || !implementedBy.MatchString(doc) {
			t.Errorf("store.go: the doc of %s does not say which backends implement it (\"Implemented by ...\")", c.Name)
			continue
		}
		want := claimed(doc)
		for _, b := range backends {
			if got := slices.Contains(has[b], c.Name); got != slices.Contains(want, b) {
				t.Errorf("%s: %s implements it: %v; store.go says %q", c.Name, b, got, implementedBy.FindString(doc))
			}
		}
		if slices.Contains(want, "sqlite") && !slices.Contains(want, "postgres") {
			rest := strings.Replace(doc, implementedBy.FindString(doc), "", 1)
			if !strings.Contains(rest, "PostgreSQL") && !strings.Contains(rest, "postgres") {
				t.Errorf("%s: SQLite has it and PostgreSQL does not, and store.go does not say why", c.Name)
			}
		}
	}
	if len(backends) == 2 {
		var missing []string
		for _, name := range has["sqlite"] {
			if !slices.Contains(has["postgres"], name) {
				missing = append(missing, name)
			}
		}
		t.Logf("SQLite has, PostgreSQL lacks (store.go says why): %v", missing)
	}
}

// pgtestAddr is pgtest.Addr, or "" without PostgreSQL (the SQLite half
// of a test still runs).
func pgtestAddr(t *testing.T) string {
	if os.Getenv(pgtest.EnvVar) == "" {
		t.Log("PostgreSQL half skipped: set " + pgtest.EnvVar + " to run it")
		return ""
	}
	return pgtest.Addr(t)
}
