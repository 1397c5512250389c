package retrieve_test

import (
	"strings"
	"testing"

	"github.com/holomem/holomem"
	"github.com/holomem/holomem/internal/testutil"
	"github.com/holomem/holomem/retrieve"
)

func TestMemory_ExpandQuery(t *testing.T) {
	m, _ := testutil.MustOpenMemory(t, retrieve.Options{})
	ns := "github.com/acme/app"
	remember(t, m, "#12 Login fails on Safari when cookies are blocked", func(f *holomem.Fact) {
		f.Namespace, f.ExternalKey = ns, "github:acme/app#12"
	})
	tests := []struct {
		q        string
		want     []string
		dontWant []string
	}{
		{"why does #12 happen?", []string{"Safari", "cookies"}, nil},
		{"see https://github.com/acme/app/issues/12 again", []string{"Safari"}, []string{"https://"}},
		{"what about #99", nil, []string{"Safari"}},
		{"check ./src/login.ts and ![shot](http://x/y.png)", nil, []string{"login.ts", "http://"}},
	}
	for _, tt := range tests {
		got := m.ExpandQuery(t.Context(), ns, tt.q)
		for _, w := range tt.want {
			if !strings.Contains(got, w) {
				t.Errorf("ExpandQuery(%q) = %q, want it to contain %q", tt.q, got, w)
			}
		}
		for _, w := range tt.dontWant {
			if strings.Contains(got, w) {
				t.Errorf("ExpandQuery(%q) = %q, must not contain %q", tt.q, got, w)
			}
		}
	}
}
