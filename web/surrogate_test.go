package web_test

import (
	"testing"

	"github.com/holomem/holomem/web"
)

// TestAPI_LoneSurrogateRefused: half a UTF-16 surrogate pair in a JSON
// string is refused with 400, not stored as U+FFFD; a whole pair is kept.
func TestAPI_LoneSurrogateRefused(t *testing.T) {
	e := newEnv(t, web.Options{})
	fails(t, e.do("POST", "/api/facts", `{"content":"bad \ud800 text"}`), 400, "bad_request")
	fails(t, e.do("POST", "/api/facts", `{"content":"bad \udc00 text"}`), 400, "bad_request")
	rem := ok[map[string]any](t, e.do("POST", "/api/facts", `{"content":"a smile \ud83d\ude00 here"}`), 201)
	if f, _ := rem["fact"].(map[string]any); f["content"] != "a smile 😀 here" {
		t.Errorf("pair stored as %q", f["content"])
	}
}
