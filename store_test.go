package holomem_test

import (
	"context"
	"go/ast"
	"go/parser"
	"go/token"
	"slices"
	"testing"

	"github.com/holomem/holomem"
)

// requiredParts are the interfaces of store.go that are not optional
// capabilities: Store and its pieces, the subsets packages take, and the
// service interfaces beside them.
var requiredParts = []string{
	"Store", "FactStore", "SearchStore", "EntityStore", "VectorStore", "EdgeStore",
	"MetaStore", "TelemetryStore", "IndexGraphStore", "IndexStore", "ImportStore",
	"Embedder", "Memory", "ImportBatches", "Unwrapper",
}

// TestCapabilities_ListsEveryInterface: every interface store.go declares
// is a required part or an entry of holomem.Capabilities, so a capability
// added without being listed (and so without a conformance subtest, and
// invisible to CapabilitiesOf) fails here.
func TestCapabilities_ListsEveryInterface(t *testing.T) {
	f, err := parser.ParseFile(token.NewFileSet(), "store.go", nil, parser.SkipObjectResolution)
	if err != nil {
		t.Fatal(err)
	}
	var declared []string
	ast.Inspect(f, func(n ast.Node) bool {
		ts, ok := n.(*ast.TypeSpec)
		if !ok {
			return true
		}
		if _, ok := ts.Type.(*ast.InterfaceType); ok && ast.IsExported(ts.Name.Name) {
			declared = append(declared, ts.Name.Name)
		}
		return false
	})
	var listed []string
	for _, c := range holomem.Capabilities {
		listed = append(listed, c.Name)
	}
	for _, name := range declared {
		if !slices.Contains(requiredParts, name) && !slices.Contains(listed, name) {
			t.Errorf("store.go declares %s, which is neither a required part nor in holomem.Capabilities", name)
		}
	}
	for _, name := range listed {
		if !slices.Contains(declared, name) {
			t.Errorf("holomem.Capabilities lists %s, which store.go does not declare", name)
		}
	}
	if len(listed) < 10 {
		t.Fatalf("only %d capabilities listed: %v", len(listed), listed)
	}
}

// capable has every optional capability (its required methods come from
// the nil Store it embeds and are never called).
type capable struct{ holomem.Store }

func (capable) RelinkEntities(context.Context, int64, int) (int64, error) { return 0, nil }
func (capable) FactChangeCursor(context.Context) (int64, error)           { return 0, nil }
func (capable) FactChanges(context.Context, int64) ([]int64, int64, error) {
	return nil, 0, nil
}
func (capable) FactChangeLog(context.Context, int64) ([]holomem.FactChange, int64, error) {
	return nil, 0, nil
}
func (capable) CreateFactLogged(context.Context, *holomem.Fact) (bool, holomem.FactChange, error) {
	return false, holomem.FactChange{}, nil
}
func (capable) Health(context.Context) error { return nil }
func (capable) TermStats(context.Context, []string) (int64, []int64, error) {
	return 0, nil, nil
}
func (capable) FactIDsWithWords(context.Context, string, []string, []string, int64) ([]int64, error) {
	return nil, nil
}
func (capable) Subscribe(func(string)) func()                { return func() {} }
func (capable) CheckFile() error                             { return nil }
func (capable) WALNotice(context.Context) (string, error)    { return "", nil }
func (capable) Namespaces(context.Context) ([]string, error) { return nil, nil }
func (capable) SimilarFacts(context.Context, string, []string, int, int) ([]holomem.TextMatch, error) {
	return nil, nil
}
func (capable) RecentFactIDsByEntity(context.Context, string, string, int) ([]int64, error) {
	return nil, nil
}
func (capable) RecentFactIDsByEntities(context.Context, string, []string, int) ([][]int64, error) {
	return nil, nil
}
func (capable) BrowseFacts(context.Context, holomem.BrowseFilter) ([]*holomem.Fact, error) {
	return nil, nil
}
func (capable) CountFacts(context.Context, holomem.BrowseFilter) (int, error) { return 0, nil }
func (capable) PrepareFacts([]*holomem.Fact, []*struct{}) (func(context.Context) ([]bool, error), error) {
	return nil, nil
}

// embedded wraps a store the usual way, by embedding: it loses every
// optional capability.
type embedded struct{ holomem.Store }

// unwrapping wraps a store and says so: it keeps them.
type unwrapping struct{ holomem.Store }

func (u unwrapping) Unwrap() holomem.Store { return u.Store }

// TestCapabilities_Wrapped: a store wrapped by a type with Unwrap keeps
// every capability of the table (and through As, not only by name), one
// wrapped by bare embedding has none, and CapabilitiesOf says the same.
func TestCapabilities_Wrapped(t *testing.T) {
	inner := capable{}
	for _, c := range holomem.Capabilities {
		t.Run(c.Name, func(t *testing.T) {
			if !c.Has(inner) {
				t.Fatalf("test store lacks %s: add its methods to capable", c.Name)
			}
			if c.Has(embedded{inner}) {
				t.Errorf("%s found through a wrapper without Unwrap", c.Name)
			}
			if !c.Has(unwrapping{inner}) {
				t.Errorf("%s lost by a wrapper with Unwrap", c.Name)
			}
			if !c.Has(unwrapping{unwrapping{inner}}) {
				t.Errorf("%s lost by two wrappers with Unwrap", c.Name)
			}
		})
	}
	all := holomem.CapabilitiesOf(inner)
	if got := holomem.CapabilitiesOf(unwrapping{inner}); !slices.Equal(got, all) {
		t.Errorf("CapabilitiesOf(wrapped) = %v, want %v", got, all)
	}
	if got := holomem.CapabilitiesOf(embedded{inner}); len(got) != 0 {
		t.Errorf("CapabilitiesOf(embedded) = %v, want none", got)
	}
	if _, ok := holomem.As[holomem.FactPreparer[*struct{}]](unwrapping{inner}); !ok {
		t.Error("As[FactPreparer] through a wrapper: not found")
	}
	if _, ok := holomem.As[holomem.WordFinder](unwrapping{nil}); ok {
		t.Error("As found a capability in a wrapper of nothing")
	}
}

// overriding implements one capability itself and unwraps for the rest:
// As must return the wrapper's own method first.
type overriding struct{ unwrapping }

func (overriding) Health(context.Context) error { return errOverride }

var errOverride = holomem.ErrConflict

func TestAs_WrapperFirst(t *testing.T) {
	hc, ok := holomem.As[holomem.HealthChecker](overriding{unwrapping{capable{}}})
	if !ok {
		t.Fatal("HealthChecker not found")
	}
	if err := hc.Health(t.Context()); err != errOverride {
		t.Fatalf("Health() = %v: As returned the inner store's, want the wrapper's", err)
	}
}
