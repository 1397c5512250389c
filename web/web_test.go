package web_test

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"net/url"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/holomem/holomem"
	"github.com/holomem/holomem/internal/testkit/testutil"
	"github.com/holomem/holomem/mcpserver"
	"github.com/holomem/holomem/retrieve"
	"github.com/holomem/holomem/web"
)

// env is a running API over a real SQLite store.
type env struct {
	t     testing.TB
	ts    *httptest.Server
	store holomem.Store
	token string
}

func newEnv(tb testing.TB, opts web.Options) *env {
	tb.Helper()
	mem, st := testutil.MustOpenMemory(tb, retrieve.Options{})
	ts := httptest.NewServer(web.NewServer(mem, st, opts))
	tb.Cleanup(ts.Close)
	return &env{t: tb, ts: ts, store: st, token: opts.Token}
}

// response is a finished request.
type response struct {
	status int
	header http.Header
	body   []byte
}

// do sends a request; body is JSON-encoded unless it is a string or nil.
func (e *env) do(method, path string, body any, hdr ...string) response {
	e.t.Helper()
	var rd io.Reader
	switch b := body.(type) {
	case nil:
	case string:
		rd = strings.NewReader(b)
	default:
		j, err := json.Marshal(b)
		if err != nil {
			e.t.Fatal(err)
		}
		rd = bytes.NewReader(j)
	}
	req, err := http.NewRequestWithContext(e.t.Context(), method, e.ts.URL+path, rd)
	if err != nil {
		e.t.Fatal(err)
	}
	if rd != nil {
		req.Header.Set("Content-Type", "application/json")
	}
	if e.token != "" {
		req.Header.Set("Authorization", "Bearer "+e.token)
	}
	for i := 0; i+1 < len(hdr); i += 2 {
		req.Header.Set(hdr[i], hdr[i+1])
	}
	resp, err := e.ts.Client().Do(req)
	if err != nil {
		e.t.Fatal(err)
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	if err != nil {
		e.t.Fatal(err)
	}
	return response{status: resp.StatusCode, header: resp.Header, body: b}
}

// ok checks the status and decodes the body into a T.
func ok[T any](tb testing.TB, r response, status int) T {
	tb.Helper()
	var v T
	if r.status != status {
		tb.Fatalf("status %d, want %d: %s", r.status, status, r.body)
	}
	if err := json.Unmarshal(r.body, &v); err != nil {
		tb.Fatalf("decode %s: %v", r.body, err)
	}
	return v
}

type errBody struct {
	Error string `json:"error"`
	Code  string `json:"code"`
}

// fails checks an error response's status and code.
func fails(tb testing.TB, r response, status int, code string) errBody {
	tb.Helper()
	e := ok[errBody](tb, r, status)
	if e.Code != code || e.Error == "" {
		tb.Errorf("error body %+v, want code %q", e, code)
	}
	if ct := r.header.Get("Content-Type"); !strings.HasPrefix(ct, "application/json") {
		tb.Errorf("error Content-Type %q", ct)
	}
	return e
}

func (e *env) remember(content string, extra ...string) *holomem.Remembered {
	e.t.Helper()
	body := map[string]any{"content": content}
	for i := 0; i+1 < len(extra); i += 2 {
		body[extra[i]] = extra[i+1]
	}
	r := e.do("POST", "/api/facts", body)
	if r.status != http.StatusCreated && r.status != http.StatusOK {
		e.t.Fatalf("remember %q: %d %s", content, r.status, r.body)
	}
	return ok[*holomem.Remembered](e.t, r, r.status)
}

func hitIDs(hs []holomem.Hit) []int64 {
	var ids []int64
	for _, h := range hs {
		ids = append(ids, h.Fact.ID)
	}
	return ids
}

func TestServer_Facts(t *testing.T) {
	e := newEnv(t, web.Options{})

	r := e.do("POST", "/api/facts", map[string]any{"content": "The deploy script lives in scripts/deploy.sh", "category": "project", "tags": []string{"Ops"}})
	created := ok[holomem.Remembered](t, r, http.StatusCreated)
	id := created.Fact.ID
	if !created.Created || id <= 0 || created.Fact.Source != web.DefaultSource || !slices.Equal(created.Fact.Tags, []string{"ops"}) {
		t.Fatalf("create: %+v %+v", created, created.Fact)
	}
	if got, want := r.header.Get("Location"), fmt.Sprintf("/api/facts/%d", id); got != want {
		t.Errorf("Location %q, want %q", got, want)
	}
	again := ok[holomem.Remembered](t, e.do("POST", "/api/facts", map[string]any{"content": "The deploy script lives in scripts/deploy.sh"}), http.StatusOK)
	if again.Created || again.Fact.ID != id {
		t.Errorf("create twice: %+v", again)
	}

	got := ok[holomem.Fact](t, e.do("GET", fmt.Sprintf("/api/facts/%d", id), nil), http.StatusOK)
	if got.Content != "The deploy script lives in scripts/deploy.sh" || got.Category != "project" {
		t.Errorf("get: %+v", got)
	}

	patched := ok[holomem.Fact](t, e.do("PATCH", fmt.Sprintf("/api/facts/%d", id), map[string]any{"category": "ops", "trust": 0.9}), http.StatusOK)
	if patched.Category != "ops" || patched.Trust != 0.9 || patched.Content != got.Content {
		t.Errorf("patch: %+v", patched)
	}

	fb := ok[holomem.Fact](t, e.do("POST", fmt.Sprintf("/api/facts/%d/feedback", id), map[string]any{"helpful": false}), http.StatusOK)
	if fb.UnhelpfulCount != 1 || fb.Trust >= 0.9 {
		t.Errorf("feedback: %+v", fb)
	}

	for i := range 5 {
		e.remember(fmt.Sprintf("Note number %d about the office", i), "category", "misc")
	}
	list := ok[web.FactList](t, e.do("GET", "/api/facts?category=misc&limit=2&offset=1", nil), http.StatusOK)
	if list.Total != 5 || len(list.Facts) != 2 || list.Limit != 2 || list.Offset != 1 {
		t.Errorf("list: total %d, %d facts, limit %d offset %d", list.Total, len(list.Facts), list.Limit, list.Offset)
	}
	all := ok[web.FactList](t, e.do("GET", "/api/facts", nil), http.StatusOK)
	if all.Total != 6 || all.Limit != web.DefaultListLimit {
		t.Errorf("list all: total %d limit %d", all.Total, all.Limit)
	}

	if r := e.do("DELETE", fmt.Sprintf("/api/facts/%d", id), nil); r.status != http.StatusNoContent {
		t.Errorf("delete: %d %s", r.status, r.body)
	}
	fails(t, e.do("GET", fmt.Sprintf("/api/facts/%d", id), nil), http.StatusNotFound, "not_found")
	fails(t, e.do("DELETE", fmt.Sprintf("/api/facts/%d", id), nil), http.StatusNotFound, "not_found")
}

func TestServer_Errors(t *testing.T) {
	e := newEnv(t, web.Options{MaxBodyBytes: 4 << 10})
	f := e.remember("Alice prefers tea")
	id := f.Fact.ID
	tests := []struct {
		name, method, path string
		body               any
		status             int
		code               string
	}{
		{"UnknownID", "GET", "/api/facts/999999", nil, 404, "not_found"},
		{"BadID", "GET", "/api/facts/abc", nil, 400, "invalid"},
		{"ZeroID", "GET", "/api/facts/0", nil, 400, "invalid"},
		{"PatchUnknown", "PATCH", "/api/facts/999999", map[string]any{"category": "x"}, 404, "not_found"},
		{"FeedbackUnknown", "POST", "/api/facts/999999/feedback", map[string]any{"helpful": true}, 404, "not_found"},
		{"BadJSON", "POST", "/api/facts", `{"content": "x"`, 400, "bad_request"},
		{"NotJSON", "POST", "/api/facts", `content=x`, 400, "bad_request"},
		{"EmptyBody", "POST", "/api/facts", ``, 400, "bad_request"},
		{"TwoValues", "POST", "/api/facts", `{"content":"a"} {"content":"b"}`, 400, "bad_request"},
		{"UnknownField", "POST", "/api/facts", map[string]any{"content": "x", "trust": 1}, 400, "bad_request"},
		{"WrongType", "POST", "/api/facts", map[string]any{"content": 5}, 400, "bad_request"},
		{"WrongNestedType", "POST", "/api/facts", map[string]any{"content": "x", "anchor": "go.mod"}, 400, "bad_request"},
		{"EmptyContent", "POST", "/api/facts", map[string]any{"content": " "}, 400, "invalid"},
		{"TooLarge", "POST", "/api/facts", map[string]any{"content": strings.Repeat("word ", 2000)}, 413, "too_large"},
		{"AnchorDevice", "POST", "/api/facts", map[string]any{"content": "x", "anchor": map[string]any{"path": "/dev/zero", "hash": "x"}}, 400, "invalid"},
		{"AnchorEscape", "POST", "/api/facts", map[string]any{"content": "x", "anchor": map[string]any{"path": "../../../etc/passwd"}}, 400, "invalid"},
		{"AnchorBadHash", "POST", "/api/facts", map[string]any{"content": "x", "anchor": map[string]any{"path": "go.mod", "hash": "x"}}, 400, "invalid"},
		{"PatchAnchorAbs", "PATCH", fmt.Sprintf("/api/facts/%d", id), map[string]any{"anchor": map[string]any{"path": "/etc/passwd"}}, 400, "invalid"},
		{"EmptyPatch", "PATCH", fmt.Sprintf("/api/facts/%d", id), map[string]any{}, 400, "invalid"},
		{"BadTrust", "PATCH", fmt.Sprintf("/api/facts/%d", id), map[string]any{"trust": 3}, 400, "invalid"},
		{"FeedbackNoHelpful", "POST", fmt.Sprintf("/api/facts/%d/feedback", id), map[string]any{}, 400, "invalid"},
		{"EmptyQuery", "GET", "/api/recall?q=", nil, 400, "invalid"},
		{"BadLimit", "GET", "/api/recall?q=tea&limit=x", nil, 400, "invalid"},
		{"BadMinTrust", "GET", "/api/recall?q=tea&min_trust=high", nil, 400, "invalid"},
		{"BadBool", "GET", "/api/recall?q=tea&ppr=maybe", nil, 400, "invalid"},
		{"RecallUnknownField", "POST", "/api/recall", map[string]any{"text": "tea", "fuzzy": true}, 400, "bad_request"},
		{"RecallLimit", "POST", "/api/recall", map[string]any{"text": "tea", "limit": 5000}, 400, "invalid"},
		{"RecallNegativeLimit", "POST", "/api/recall", map[string]any{"query": "tea", "limit": -5}, 400, "invalid"},
		{"RecallTwoTexts", "POST", "/api/recall", map[string]any{"query": "tea", "text": "coffee"}, 400, "invalid"},
		{"RecallGetTwoTexts", "GET", "/api/recall?query=tea&q=coffee", nil, 400, "invalid"},
		{"RecallBadBudget", "GET", "/api/recall?q=tea&budget=5", nil, 400, "invalid"},
		{"RecallNegativeOffset", "POST", "/api/recall", map[string]any{"query": "tea", "offset": -1}, 400, "invalid"},
		{"ProbeNoEntity", "GET", "/api/probe", nil, 400, "invalid"},
		{"ListLimit", "GET", "/api/facts?limit=5000", nil, 400, "invalid"},
		{"EdgeSelfLoop", "POST", "/api/edges", map[string]any{"from": id, "to": id, "kind": "causal"}, 400, "invalid"},
		{"EdgeUnknownFact", "POST", "/api/edges", map[string]any{"from": id, "to": 999999, "kind": "causal"}, 404, "not_found"},
		{"EdgeBadKind", "POST", "/api/edges", map[string]any{"from": id, "to": 999999, "kind": "NO"}, 400, "invalid"},
		{"DeleteEdgeBadKind", "DELETE", fmt.Sprintf("/api/edges?from=%d&to=%d&kind=NO", id, id+1), nil, 400, "invalid"},
		{"DeleteEdgeMissing", "DELETE", fmt.Sprintf("/api/edges?from=%d&to=%d&kind=causal", id, id+1), nil, 404, "not_found"},
		{"DeleteEdgeBadID", "DELETE", "/api/edges?from=x&to=1&kind=causal", nil, 400, "invalid"},
		{"SupersedeUnknown", "POST", "/api/supersede", map[string]any{"old": id, "new": 999999}, 404, "not_found"},
		{"SupersedeZero", "POST", "/api/supersede", map[string]any{"old": id}, 400, "invalid"},
		{"SupersedeItself", "POST", "/api/supersede", map[string]any{"old": id, "new": id}, 400, "invalid"},
		{"ArrayBody", "POST", "/api/facts", `[{"content":"x"}]`, 400, "bad_request"},
		{"ArrayRecall", "POST", "/api/recall", `["tea"]`, 400, "bad_request"},
		{"StringBody", "POST", "/api/edges", `"x"`, 400, "bad_request"},
		{"NoRoute", "GET", "/api/nothing", nil, 404, "not_found"},
		{"WrongMethod", "PUT", "/api/facts", nil, 405, "method_not_allowed"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			eb := fails(t, e.do(tc.method, tc.path, tc.body), tc.status, tc.code)
			if strings.Contains(eb.Error, "holomem: ") {
				t.Errorf("error %q repeats the sentinel prefix", eb.Error)
			}
			if strings.Count(eb.Error, fmt.Sprintf("supersede %d with %d", id, id)) > 1 || strings.Count(eb.Error, "invalid input") > 1 {
				t.Errorf("error %q says what failed twice", eb.Error)
			}
			if strings.Contains(eb.Error, "web.") || strings.Contains(eb.Error, "holomem.") {
				t.Errorf("error %q names a Go type", eb.Error)
			}
			if tc.name == "ArrayBody" || tc.name == "StringBody" || tc.name == "ArrayRecall" {
				if !strings.Contains(eb.Error, "the body must be a JSON object") {
					t.Errorf("error %q does not say the body must be a JSON object", eb.Error)
				}
			}
		})
	}
	if r := e.do("PUT", "/api/facts", nil); r.header.Get("Allow") == "" {
		t.Errorf("405 without Allow")
	}
}

func TestServer_Recall(t *testing.T) {
	e := newEnv(t, web.Options{})
	tea := e.remember("Alice prefers green tea in the morning")
	e.remember("Bob drinks black coffee at night")

	post := ok[holomem.Result](t, e.do("POST", "/api/recall", holomem.Query{Text: "what tea does Alice like", Limit: 5}), http.StatusOK)
	if len(post.Hits) == 0 || post.Hits[0].Fact.ID != tea.Fact.ID {
		t.Errorf("POST recall: hits %v, want %d first", hitIDs(post.Hits), tea.Fact.ID)
	}
	get := ok[holomem.Result](t, e.do("GET", "/api/recall?q="+url.QueryEscape("green tea")+"&limit=3&min_trust=0&ppr=1&follow_causal=true", nil), http.StatusOK)
	if !slices.Contains(hitIDs(get.Hits), tea.Fact.ID) {
		t.Errorf("GET recall: hits %v", hitIDs(get.Hits))
	}
	if len(get.Channels) == 0 {
		t.Errorf("GET recall: no channels")
	}
	// "query" names the text on every door (MCP's recall tool too); "text"
	// (POST) and "q" (GET) remain aliases.
	for _, r := range []response{
		e.do("POST", "/api/recall", map[string]any{"query": "what tea does Alice like", "limit": 5}),
		e.do("POST", "/api/recall", map[string]any{"query": "what tea does Alice like", "text": "what tea does Alice like"}),
		e.do("GET", "/api/recall?query="+url.QueryEscape("what tea does Alice like"), nil),
	} {
		if res := ok[holomem.Result](t, r, http.StatusOK); len(res.Hits) == 0 || res.Hits[0].Fact.ID != tea.Fact.ID {
			t.Errorf("recall by query: hits %v, want %d first", hitIDs(res.Hits), tea.Fact.ID)
		}
	}
	// FTS5 operators and quoting in the query are data.
	for _, q := range []string{`"tea`, `tea AND coffee`, `-tea`, `tea*`, `col:tea`, `(tea OR`, `NEAR(tea coffee)`, `'; DROP TABLE facts; --`, `^tea`, `tea + "`} {
		r := e.do("GET", "/api/recall?q="+url.QueryEscape(q), nil)
		res := ok[holomem.Result](t, r, http.StatusOK)
		if res.Hits == nil {
			t.Errorf("recall %q: hits is null, want []", q)
		}
	}
}

func TestServer_Entities(t *testing.T) {
	e := newEnv(t, web.Options{})
	a := e.remember("Alice maintains the Billing service")
	e.remember("Bob maintains the Search service")
	both := e.remember("Alice and Bob pair on the Billing migration")

	probe := ok[web.HitList](t, e.do("GET", "/api/probe?entity=Alice", nil), http.StatusOK)
	if ids := hitIDs(probe.Hits); !slices.Contains(ids, a.Fact.ID) || !slices.Contains(ids, both.Fact.ID) {
		t.Errorf("probe Alice: %v, want %d and %d", ids, a.Fact.ID, both.Fact.ID)
	}
	rel := ok[web.EntityList](t, e.do("GET", "/api/related?entity=Alice&limit=5", nil), http.StatusOK)
	if rel.Entities == nil {
		t.Errorf("related: entities is null")
	}
	reason := ok[web.HitList](t, e.do("GET", "/api/reason?entity=Alice&entity=Bob", nil), http.StatusOK)
	if ids := hitIDs(reason.Hits); len(ids) == 0 || ids[0] != both.Fact.ID {
		t.Errorf("reason Alice+Bob: %v, want %d first", ids, both.Fact.ID)
	}
}

func TestServer_EdgesAndSupersede(t *testing.T) {
	e := newEnv(t, web.Options{Version: "v9"})
	issue := e.remember("Issue #42: login fails when the password has a quote").Fact.ID
	fix := e.remember("PR #43 fixes #42 by escaping quotes").Fact.ID

	edge := ok[web.EdgeResponse](t, e.do("POST", "/api/edges", map[string]any{"from": issue, "to": fix, "kind": "causal"}), http.StatusCreated)
	if !edge.Created || edge.Edge.Weight != 1 || edge.Edge.Origin != holomem.OriginUser {
		t.Errorf("create edge: %+v %+v", edge, edge.Edge)
	}
	again := ok[web.EdgeResponse](t, e.do("POST", "/api/edges", map[string]any{"from": issue, "to": fix, "kind": "causal", "weight": 0.5}), http.StatusOK)
	if again.Created {
		t.Errorf("create edge twice: created")
	}
	list := ok[web.EdgeList](t, e.do("GET", fmt.Sprintf("/api/facts/%d/edges", fix), nil), http.StatusOK)
	if len(list.Edges) != 1 || list.Edges[0].From != issue || list.Edges[0].Weight != 0.5 {
		t.Errorf("edges: %+v", list.Edges)
	}
	if r := e.do("DELETE", fmt.Sprintf("/api/edges?from=%d&to=%d&kind=causal", issue, fix), nil); r.status != http.StatusNoContent {
		t.Errorf("delete edge: %d %s", r.status, r.body)
	}
	e.do("POST", "/api/edges", map[string]any{"from": issue, "to": fix, "kind": "related-to"})
	if r := e.do("DELETE", "/api/edges", map[string]any{"from": issue, "to": fix, "kind": "related-to"}); r.status != http.StatusNoContent {
		t.Errorf("delete edge by body: %d %s", r.status, r.body)
	}
	if l := ok[web.EdgeList](t, e.do("GET", fmt.Sprintf("/api/facts/%d/edges", fix), nil), http.StatusOK); len(l.Edges) != 0 {
		t.Errorf("edges after delete: %+v", l.Edges)
	}

	old := e.remember("The API listens on port 8080").Fact.ID
	cur := e.remember("The API listens on port 9090").Fact.ID
	ok[web.SupersedeResponse](t, e.do("POST", "/api/supersede", map[string]any{"old": old, "new": cur}), http.StatusOK)
	res := ok[holomem.Result](t, e.do("GET", "/api/recall?q=port+API+listens", nil), http.StatusOK)
	if ids := hitIDs(res.Hits); slices.Contains(ids, old) || !slices.Contains(ids, cur) {
		t.Errorf("recall after supersede: %v, want %d not %d", ids, cur, old)
	}
	f := ok[holomem.Fact](t, e.do("GET", fmt.Sprintf("/api/facts/%d", old), nil), http.StatusOK)
	if f.SupersededBy != cur {
		t.Errorf("superseded_by %d, want %d", f.SupersededBy, cur)
	}

	st := ok[holomem.Stats](t, e.do("GET", "/api/stats", nil), http.StatusOK)
	if st.Facts < 4 || st.Edges[string(holomem.EdgeSupersedes)] != 1 {
		t.Errorf("stats: facts %d edges %v", st.Facts, st.Edges)
	}
	h := ok[map[string]string](t, e.do("GET", "/healthz", nil), http.StatusOK)
	if h["status"] != "ok" || h["version"] != "v9" {
		t.Errorf("healthz: %v", h)
	}
}

func TestServer_Namespaces(t *testing.T) {
	e := newEnv(t, web.Options{Namespace: "team"})
	inTeam := e.remember("Deploys happen on Tuesdays")
	if inTeam.Fact.Namespace != "team" {
		t.Fatalf("default namespace %q, want team", inTeam.Fact.Namespace)
	}
	viaQuery := ok[holomem.Remembered](t, e.do("POST", "/api/facts?namespace=alpha", map[string]any{"content": "Deploys happen on Fridays"}), http.StatusCreated)
	viaHeader := ok[holomem.Remembered](t, e.do("POST", "/api/facts", map[string]any{"content": "Deploys happen on Mondays"}, web.NamespaceHeader, "beta"), http.StatusCreated)
	viaBody := ok[holomem.Remembered](t, e.do("POST", "/api/facts?namespace=alpha", map[string]any{"content": "Deploys happen daily", "namespace": "gamma"}), http.StatusCreated)
	for _, tc := range []struct {
		f    *holomem.Fact
		want string
	}{{viaQuery.Fact, "alpha"}, {viaHeader.Fact, "beta"}, {viaBody.Fact, "gamma"}} {
		if tc.f.Namespace != tc.want {
			t.Errorf("fact %q in %q, want %q", tc.f.Content, tc.f.Namespace, tc.want)
		}
	}
	// Ids of another namespace are not found; recall and lists stay inside.
	fails(t, e.do("GET", fmt.Sprintf("/api/facts/%d", viaQuery.Fact.ID), nil), http.StatusNotFound, "not_found")
	fails(t, e.do("DELETE", fmt.Sprintf("/api/facts/%d?namespace=beta", viaQuery.Fact.ID), nil), http.StatusNotFound, "not_found")
	ok[holomem.Fact](t, e.do("GET", fmt.Sprintf("/api/facts/%d", viaQuery.Fact.ID), nil, web.NamespaceHeader, "alpha"), http.StatusOK)
	res := ok[holomem.Result](t, e.do("GET", "/api/recall?q=deploys&namespace=beta", nil), http.StatusOK)
	if ids := hitIDs(res.Hits); len(ids) != 1 || ids[0] != viaHeader.Fact.ID {
		t.Errorf("recall in beta: %v, want only %d", ids, viaHeader.Fact.ID)
	}
	post := ok[holomem.Result](t, e.do("POST", "/api/recall", holomem.Query{Text: "deploys", Namespace: "gamma"}), http.StatusOK)
	if ids := hitIDs(post.Hits); len(ids) != 1 || ids[0] != viaBody.Fact.ID {
		t.Errorf("recall in gamma: %v", ids)
	}
	if l := ok[web.FactList](t, e.do("GET", "/api/facts", nil), http.StatusOK); l.Total != 1 {
		t.Errorf("list team: total %d, want 1", l.Total)
	}
	fails(t, e.do("POST", "/api/edges", map[string]any{"from": inTeam.Fact.ID, "to": viaQuery.Fact.ID, "kind": "causal"}), http.StatusNotFound, "not_found")
}

func TestServer_Auth(t *testing.T) {
	mcpHit := false
	mcp := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { mcpHit = true })
	mem, st := testutil.MustOpenMemory(t, retrieve.Options{})
	ts := httptest.NewServer(web.NewServer(mem, st, web.Options{Token: "s3cret", MCP: mcp}))
	defer ts.Close()
	tests := []struct {
		name, method, path, auth string
		status                   int
	}{
		{"Missing", "GET", "/api/stats", "", 401},
		{"Wrong", "GET", "/api/stats", "Bearer nope", 401},
		{"Prefix", "GET", "/api/stats", "Bearer s3cre", 401},
		{"Longer", "GET", "/api/stats", "Bearer s3cret!", 401},
		{"Basic", "GET", "/api/stats", "Basic czNjcmV0", 401},
		{"Empty", "GET", "/api/stats", "Bearer ", 401},
		{"Right", "GET", "/api/stats", "Bearer s3cret", 200},
		{"CaseInsensitiveScheme", "GET", "/api/stats", "bearer s3cret", 200},
		{"HealthzOpen", "GET", "/healthz", "", 200},
		{"MCPMissing", "POST", "/mcp", "", 401},
		{"PostMissing", "POST", "/api/facts", "", 401},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			req, _ := http.NewRequest(tc.method, ts.URL+tc.path, strings.NewReader(`{"content":"x"}`))
			if tc.auth != "" {
				req.Header.Set("Authorization", tc.auth)
			}
			resp, err := ts.Client().Do(req)
			if err != nil {
				t.Fatal(err)
			}
			body, _ := io.ReadAll(resp.Body)
			resp.Body.Close()
			if resp.StatusCode != tc.status {
				t.Fatalf("status %d, want %d: %s", resp.StatusCode, tc.status, body)
			}
			if tc.status == 401 {
				if resp.Header.Get("WWW-Authenticate") == "" {
					t.Errorf("401 without WWW-Authenticate")
				}
				if !strings.Contains(string(body), `"unauthorized"`) {
					t.Errorf("401 body %s", body)
				}
			}
		})
	}
	if mcpHit {
		t.Errorf("MCP handler reached without a token")
	}
	req, _ := http.NewRequest("POST", ts.URL+"/mcp", nil)
	req.Header.Set("Authorization", "Bearer s3cret")
	resp, err := ts.Client().Do(req)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if !mcpHit {
		t.Errorf("MCP handler not reached with the token")
	}
}

func TestServer_Concurrent(t *testing.T) {
	e := newEnv(t, web.Options{})
	const workers, each = 4, 5
	var wg sync.WaitGroup
	errs := make(chan error, workers*each*2)
	for w := range workers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range each {
				content := fmt.Sprintf("worker %d wrote note %d about topic%d", w, i, i%3)
				b, _ := json.Marshal(map[string]any{"content": content})
				resp, err := e.ts.Client().Post(e.ts.URL+"/api/facts", "application/json", bytes.NewReader(b))
				if err != nil {
					errs <- err
					continue
				}
				resp.Body.Close()
				if resp.StatusCode != http.StatusCreated {
					errs <- fmt.Errorf("create %q: %d", content, resp.StatusCode)
				}
				resp, err = e.ts.Client().Get(e.ts.URL + "/api/recall?q=" + url.QueryEscape(fmt.Sprintf("topic%d note", i%3)))
				if err != nil {
					errs <- err
					continue
				}
				resp.Body.Close()
				if resp.StatusCode != http.StatusOK {
					errs <- fmt.Errorf("recall: %d", resp.StatusCode)
				}
			}
		}()
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Error(err)
	}
	if l := ok[web.FactList](t, e.do("GET", "/api/facts?limit=1", nil), http.StatusOK); l.Total != workers*each {
		t.Errorf("total %d, want %d", l.Total, workers*each)
	}
}

func TestListenAddrAllowed(t *testing.T) {
	tests := []struct {
		addr, token string
		ok          bool
	}{
		{"127.0.0.1:7777", "", true},
		{"127.1.2.3:80", "", true},
		{"localhost:7777", "", true},
		{"[::1]:7777", "", true},
		{"0.0.0.0:7777", "", false},
		{":7777", "", false},
		{"[::]:7777", "", false},
		{"192.168.1.5:7777", "", false},
		{"example.com:7777", "", false},
		{"0.0.0.0:7777", "tok", false}, // too short beyond loopback
		{"0.0.0.0:7777", strings.Repeat("t", 31), false},
		{"0.0.0.0:7777", strings.Repeat("t", 32), true},
		{":7777", strings.Repeat("t", 32), true},
		{"127.0.0.1:7777", "tok", true},
		{"0.0.0.0:7777", "   ", false},
		{"nonsense", "", false},
		{"nonsense", "tok", false},
	}
	for _, tc := range tests {
		err := web.ListenAddrAllowed(tc.addr, tc.token)
		if (err == nil) != tc.ok {
			t.Errorf("ListenAddrAllowed(%q, %q) = %v, want ok=%v", tc.addr, tc.token, err, tc.ok)
		}
	}
}

// FuzzServer_Decode sends arbitrary bodies to the JSON endpoints: the
// answer is always JSON and never a 500.
func FuzzServer_Decode(f *testing.F) {
	f.Add("/api/recall", `{"text":"tea","limit":3}`)
	f.Add("/api/facts", `{"content":"Alice likes tea","tags":["a"]}`)
	f.Add("/api/edges", `{"from":1,"to":2,"kind":"causal"}`)
	f.Add("/api/supersede", `{"old":1,"new":2}`)
	f.Add("/api/facts/1/feedback", `{"helpful":true}`)
	f.Add("/api/recall", `{"text":"\u0000","min_trust":-1,"weights":{"fts":-1}}`)
	f.Add("/api/facts", `{"content":"x"}{"content":"y"}`)
	f.Add("/api//recall", `{"text":"tea"}`)
	f.Add("/api/\x1f", `{}`)
	f.Add("/api/facts", "{\"content\":\"\xff\"}")
	mem, st := testutil.MustOpenMemory(f, retrieve.Options{})
	h := web.NewServer(mem, st, web.Options{MaxBodyBytes: 64 << 10})
	seed := httptest.NewRecorder()
	h.ServeHTTP(seed, httptest.NewRequest("POST", "/api/facts", strings.NewReader(`{"content":"Alice drinks green tea"}`)))
	f.Fuzz(func(t *testing.T, path, body string) {
		if !strings.HasPrefix(path, "/api/") || strings.ContainsAny(path, " ?#%\x00\r\n\t") {
			return
		}
		// http.NewRequest, not httptest.NewRequest: the latter panics on
		// a path a real client cannot send (control bytes); skip those.
		req, err := http.NewRequest("POST", "http://127.0.0.1"+path, strings.NewReader(body))
		if err != nil {
			return
		}
		rec := httptest.NewRecorder()
		h.ServeHTTP(rec, req)
		if rec.Code >= 300 && rec.Code < 400 {
			t.Fatalf("POST %s: redirect %d before auth", path, rec.Code)
		}
		if rec.Code >= 500 && rec.Code != http.StatusServiceUnavailable {
			t.Fatalf("POST %s %q: status %d: %s", path, body, rec.Code, rec.Body)
		}
		if rec.Code != http.StatusNoContent && !json.Valid(rec.Body.Bytes()) {
			t.Fatalf("POST %s %q: body is not JSON: %q", path, body, rec.Body)
		}
	})
}

// FuzzServer_Query sends arbitrary query strings to every GET endpoint:
// the answer is JSON, never a redirect and never a 500 (bad parameters are
// 400 with the reason).
func FuzzServer_Query(f *testing.F) {
	endpoints := []string{"/api/recall", "/api/probe", "/api/related", "/api/reason", "/api/facts", "/api/facts/1", "/api/facts/1/edges", "/api/stats"}
	f.Add(uint8(0), "q=green+tea&limit=3")
	f.Add(uint8(0), "q=%00&limit=-1&min_trust=2&category=")
	f.Add(uint8(0), "q="+strings.Repeat("tea+", 5000))
	f.Add(uint8(0), "q=tea&weights=fts:1e308,jaccard:1e308")
	f.Add(uint8(1), "entity=Alice&limit=100000000")
	f.Add(uint8(2), "entity=%ff%fe&limit=abc")
	f.Add(uint8(3), "entity=Alice&entity=Bob&entity="+strings.Repeat("x", 300))
	f.Add(uint8(4), "limit=2&offset=-5&category=general&tag=a&namespace=../x")
	f.Add(uint8(5), "namespace=other")
	f.Add(uint8(6), "limit=0")
	f.Add(uint8(7), "namespace=%zz")
	f.Add(uint8(0), "q=a&q=b;c=d&&=&")
	mem, st := testutil.MustOpenMemory(f, retrieve.Options{})
	h := web.NewServer(mem, st, web.Options{})
	seed := httptest.NewRecorder()
	h.ServeHTTP(seed, httptest.NewRequest("POST", "/api/facts", strings.NewReader(`{"content":"Alice drinks green tea with Bob"}`)))
	f.Fuzz(func(t *testing.T, which uint8, query string) {
		path := endpoints[int(which)%len(endpoints)]
		req, err := http.NewRequest("GET", "http://127.0.0.1"+path, nil)
		if err != nil {
			t.Fatal(err)
		}
		// The raw query as a client sends it: no escaping done for it.
		if strings.ContainsAny(query, " #\x00\r\n\t") || len(query) > 64<<10 {
			return
		}
		req.URL.RawQuery = query
		rec := httptest.NewRecorder()
		h.ServeHTTP(rec, req)
		if rec.Code >= 300 && rec.Code < 400 {
			t.Fatalf("GET %s?%s: redirect %d", path, query, rec.Code)
		}
		if rec.Code >= 500 && rec.Code != http.StatusServiceUnavailable {
			t.Fatalf("GET %s?%q: status %d: %s", path, query, rec.Code, rec.Body)
		}
		if !json.Valid(rec.Body.Bytes()) {
			t.Fatalf("GET %s?%q: body is not JSON: %q", path, query, rec.Body)
		}
	})
}

var sinkResult holomem.Result

// BenchmarkServer_Recall measures GET /api/recall over a loopback HTTP
// connection on 500 facts.
func BenchmarkServer_Recall(b *testing.B) {
	e := newEnv(b, web.Options{})
	for i := range 500 {
		e.remember(fmt.Sprintf("Fact %d: service%d talks to database%d over port %d", i, i%17, i%5, 8000+i))
	}
	path := "/api/recall?q=" + url.QueryEscape("which service talks to database3") + "&limit=10"
	b.ReportAllocs()
	b.ResetTimer()
	for b.Loop() {
		sinkResult = ok[holomem.Result](b, e.do("GET", path, nil), http.StatusOK)
	}
}

func TestServer_BrowserAttacks(t *testing.T) {
	e := newEnv(t, web.Options{})
	e.remember("Alice drinks green tea")
	host := strings.TrimPrefix(e.ts.URL, "http://")
	// A cross-site GET is refused like a cross-site POST: a recall answers
	// with the memory and counts retrievals (issue 13).
	const recallGet = "/api/recall?q=green+tea"
	tests := []struct {
		name, method string
		path         string // "" means /api/facts
		hdr          []string
		host         string
		status       int
	}{
		{"CrossSitePost", "POST", "", []string{"Sec-Fetch-Site", "cross-site"}, "", 403},
		{"ForeignOriginPost", "POST", "", []string{"Origin", "http://evil.example"}, "", 403},
		{"SameOriginPost", "POST", "", []string{"Sec-Fetch-Site", "same-origin"}, "", 201},
		{"CrossSiteGet", "GET", "", []string{"Sec-Fetch-Site", "cross-site"}, "", 403},
		{"CrossSiteRecallGet", "GET", recallGet, []string{"Sec-Fetch-Site", "cross-site"}, "", 403},
		{"SameSiteRecallGet", "GET", recallGet, []string{"Sec-Fetch-Site", "same-site"}, "", 403},
		{"ForeignOriginRecallGet", "GET", recallGet, []string{"Origin", "http://evil.example"}, "", 403},
		{"CrossSiteRecallHead", "HEAD", recallGet, []string{"Sec-Fetch-Site", "cross-site"}, "", 403},
		{"CrossSiteMCPGet", "GET", "/mcp", []string{"Sec-Fetch-Site", "cross-site"}, "", 403},
		{"SameOriginRecallGet", "GET", recallGet, []string{"Sec-Fetch-Site", "same-origin"}, "", 200},
		{"OwnOriginRecallGet", "GET", recallGet, []string{"Origin", "http://" + host}, "", 200},
		{"TypedURLRecallGet", "GET", recallGet, []string{"Sec-Fetch-Site", "none"}, "", 200},
		{"ProgramRecallGet", "GET", recallGet, nil, "", 200},
		{"CrossSiteLinkToUI", "GET", "/", []string{"Sec-Fetch-Site", "cross-site"}, "", 200},
		{"DNSRebinding", "GET", "", nil, "evil.example", 403},
		{"LocalhostHost", "GET", "", nil, "localhost", 200},
	}
	for i, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			path, body := "/api/facts", fmt.Sprintf(`{"content":"note %d"}`, i)
			if tc.path != "" {
				path = tc.path
			}
			req, _ := http.NewRequest(tc.method, e.ts.URL+path, strings.NewReader(body))
			if tc.method != "POST" {
				req, _ = http.NewRequest(tc.method, e.ts.URL+path, nil)
			}
			for j := 0; j+1 < len(tc.hdr); j += 2 {
				req.Header.Set(tc.hdr[j], tc.hdr[j+1])
			}
			if tc.host != "" {
				req.Host = tc.host
			}
			resp, err := e.ts.Client().Do(req)
			if err != nil {
				t.Fatal(err)
			}
			b, _ := io.ReadAll(resp.Body)
			resp.Body.Close()
			if resp.StatusCode != tc.status {
				t.Fatalf("status %d, want %d: %s", resp.StatusCode, tc.status, b)
			}
			if tc.status == 403 && tc.method != "HEAD" && !strings.Contains(string(b), `"forbidden"`) {
				t.Errorf("403 body %s", b)
			}
		})
	}
}

// bearer adds a token to every request of an http.Client.
type bearer struct {
	token string
	next  http.RoundTripper
}

func (b bearer) RoundTrip(r *http.Request) (*http.Response, error) {
	r = r.Clone(r.Context())
	r.Header.Set("Authorization", "Bearer "+b.token)
	return b.next.RoundTrip(r)
}

// TestServer_MCP wires the API and MCP the way `holomem serve` does: one
// handler, MCP at /mcp behind the same token.
func TestServer_MCP(t *testing.T) {
	mem, st := testutil.MustOpenMemory(t, retrieve.Options{})
	m := mcpserver.New(mem, st, mcpserver.Options{Version: "test"})
	ts := httptest.NewServer(web.NewServer(mem, st, web.Options{Token: "tok", MCP: m.Handler()}))
	defer ts.Close()

	client := mcp.NewClient(&mcp.Implementation{Name: "test", Version: "1"}, nil)
	if _, err := client.Connect(t.Context(), &mcp.StreamableClientTransport{Endpoint: ts.URL + "/mcp", MaxRetries: -1}, nil); err == nil {
		t.Fatal("MCP without the token: connected")
	}
	hc := &http.Client{Transport: bearer{token: "tok", next: http.DefaultTransport}}
	cs, err := client.Connect(t.Context(), &mcp.StreamableClientTransport{Endpoint: ts.URL + "/mcp", HTTPClient: hc, MaxRetries: -1}, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer cs.Close()
	res, err := cs.CallTool(t.Context(), &mcp.CallToolParams{Name: "remember", Arguments: map[string]any{"content": "Alice prefers tea"}})
	if err != nil || res.IsError {
		t.Fatalf("remember over /mcp: %v %+v", err, res)
	}
	e := &env{t: t, ts: ts, store: st, token: "tok"}
	if l := ok[web.FactList](t, e.do("GET", "/api/facts", nil), http.StatusOK); l.Total != 1 || l.Facts[0].Content != "Alice prefers tea" {
		t.Errorf("fact remembered over MCP not listed by the API: %+v", l)
	}
}

// TestServer_ListSaysSupersededLeftOut: GET /api/facts leaves superseded
// facts out of its list and total unless asked, and says so and how many,
// so its total matching no other count is explained.
func TestServer_ListSaysSupersededLeftOut(t *testing.T) {
	e := newEnv(t, web.Options{})
	old := e.remember("The API listens on port 8080", "category", "net").Fact.ID
	cur := e.remember("The API listens on port 9090 since the migration", "category", "net").Fact.ID
	e.remember("The proxy forwards to the API", "category", "net")
	ok[web.SupersedeResponse](t, e.do("POST", "/api/supersede", map[string]any{"old": old, "new": cur}), http.StatusOK)
	for _, tc := range []struct {
		query        string
		total        float64
		included     bool
		excluded     float64
		listedTheOld bool
	}{
		{"?category=net", 2, false, 1, false},
		{"?category=net&include_superseded=true", 3, true, 0, true},
		{"?category=other", 0, false, 0, false},
	} {
		var body map[string]any
		if err := json.Unmarshal(e.do("GET", "/api/facts"+tc.query, nil).body, &body); err != nil {
			t.Fatal(err)
		}
		listed := false
		for _, f := range body["facts"].([]any) {
			listed = listed || f.(map[string]any)["id"].(float64) == float64(old)
		}
		if body["total"] != tc.total || body["include_superseded"] != tc.included || body["superseded_excluded"] != tc.excluded || listed != tc.listedTheOld {
			t.Errorf("GET /api/facts%s: total %v, include_superseded %v, superseded_excluded %v, old fact listed %v; want %v, %v, %v, %v",
				tc.query, body["total"], body["include_superseded"], body["superseded_excluded"], listed, tc.total, tc.included, tc.excluded, tc.listedTheOld)
		}
	}
}
