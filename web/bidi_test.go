package web_test

import (
	"strings"
	"testing"

	"github.com/holomem/holomem/web"
)

// TestUI_BidiControlsShownEscaped: a right-to-left override in a fact
// would make "RTL \u202egnp.exe\u202c" read as "RTL exe.png"; the pages
// show the control characters as escapes instead (the edit form keeps the
// text as stored).
func TestUI_BidiControlsShownEscaped(t *testing.T) {
	e := newEnv(t, web.Options{})
	ok[map[string]any](t, e.do("POST", "/api/facts", map[string]any{
		"content": "RTL \u202egnp.exe\u202c attachment \u2067isolated\u2069",
	}), 201)
	for _, path := range []string{"/facts/1", "/?q=attachment", "/facts/1/forget"} {
		r := e.do("GET", path, nil)
		body := string(r.body)
		if r.status != 200 || !strings.Contains(body, `RTL \u202egnp.exe\u202c`) {
			t.Errorf("%s: %d, no escaped override in\n%s", path, r.status, body)
		}
		// Raw only inside the edit form's textarea.
		outside := body
		if i := strings.Index(outside, "<textarea"); i >= 0 {
			j := strings.Index(outside[i:], "</textarea>")
			outside = outside[:i] + outside[i+j:]
		}
		if strings.ContainsAny(outside, "\u202e\u202c\u2067") {
			t.Errorf("%s shows a raw bidi control outside the edit form", path)
		}
	}
}
