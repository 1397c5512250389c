package main

import (
	"encoding/json"
	"strings"
	"testing"
)

// TestCLI_ForgetSome: `forget 1 999` deletes #1, reports #999 not found and
// exits 3; a bad id deletes nothing.
func TestCLI_ForgetSome(t *testing.T) {
	c := newCLI(t)
	c.ok("add", "first fact")
	c.ok("add", "second fact")
	if _, _, code := c.run("", "forget", "2", "x"); code != exitUsage {
		t.Fatalf("forget 2 x: exit %d, want %d", code, exitUsage)
	}
	out, errs, code := c.run("", "forget", "1", "999")
	if code != exitNotFound || !strings.Contains(out, "forgot #1") || !strings.Contains(out, "#999 not found") {
		t.Fatalf("forget 1 999: exit %d\nstdout: %s\nstderr: %s", code, out, errs)
	}
	if _, _, code := c.run("", "get", "1"); code != exitNotFound {
		t.Errorf("#1 still there after forget 1 999 (get exit %d)", code)
	}
	if _, _, code := c.run("", "get", "2"); code != exitOK {
		t.Errorf("#2 gone although forget stopped at a bad id (get exit %d)", code)
	}
	var res struct {
		Forgotten []int64 `json:"forgotten"`
		NotFound  []int64 `json:"not_found"`
	}
	out, _, _ = c.run("", "--json", "forget", "2", "7")
	if err := jsonUnmarshal(out, &res); err != nil || len(res.Forgotten) != 1 || res.Forgotten[0] != 2 || len(res.NotFound) != 1 || res.NotFound[0] != 7 {
		t.Errorf("forget --json 2 7 = %s (%v)", out, err)
	}
}

func jsonUnmarshal(s string, v any) error { return json.Unmarshal([]byte(s), v) }

// TestCLI_ErrorsSayItOnce: errors name the operation once
// ("supersede 2 by 2: supersede 2 with 2: ..." said it twice).
func TestCLI_ErrorsSayItOnce(t *testing.T) {
	c := newCLI(t)
	c.ok("add", "first fact")
	c.ok("add", "second fact")
	tests := []struct {
		args []string
		word string
	}{
		{[]string{"supersede", "2", "2"}, "supersede"},
		{[]string{"supersede", "1", "99"}, "supersede"},
		{[]string{"update", "99", "--category", "x"}, "update"},
		{[]string{"feedback", "99", "--helpful"}, "feedback"},
		{[]string{"forget", "99"}, "forget"},
	}
	for _, tt := range tests {
		_, errs, code := c.run("", tt.args...)
		if code == 0 {
			t.Errorf("%v: exit 0", tt.args)
			continue
		}
		msg := strings.SplitN(errs, "\n", 2)[0]
		if errs := strings.SplitN(errs, "holomem:", 2); len(errs) == 2 {
			msg = errs[1]
		}
		if n := strings.Count(msg, tt.word); n != 1 {
			t.Errorf("%v: %q says %q %d times", tt.args, msg, tt.word, n)
		}
	}
}

// TestCLI_OtherNamespace: recall in a namespace without the fact says which
// namespace it searched and where the words match; get stays in the
// namespace as over HTTP and MCP (404 there) and says where the fact is.
func TestCLI_OtherNamespace(t *testing.T) {
	c := newCLI(t)
	c.ok("add", "The staging database runs Postgres 16") // in "default" (--global)
	out := c.ok("-n", "proj", "recall", "postgres")
	if !strings.Contains(out, `nothing found in namespace "proj"`) || !strings.Contains(out, `"default" (1)`) {
		t.Errorf("recall in proj:\n%s", out)
	}
	_, errs, code := c.run("", "-n", "proj", "get", "1")
	if code != exitNotFound || !strings.Contains(errs, `it is in namespace "default"`) {
		t.Errorf("get 1 in proj: exit %d, stderr %q; want exit %d naming namespace default", code, errs, exitNotFound)
	}
	c.ok("get", "1")
}
