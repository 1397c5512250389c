package web_test

import (
	"bytes"
	"fmt"
	"net/http"
	"net/http/cookiejar"
	"net/http/httptest"
	"regexp"
	"strings"
	"testing"

	"github.com/holomem/holomem"
	"github.com/holomem/holomem/internal/testkit/testutil"
	"github.com/holomem/holomem/retrieve"
	"github.com/holomem/holomem/web"
)

// newBrowserWithStore is newBrowser that also hands back the store, for
// tests that write edges directly.
func newBrowserWithStore(t *testing.T) (*browser, holomem.Store) {
	t.Helper()
	mem, st := testutil.MustOpenMemory(t, retrieve.Options{})
	ts := httptest.NewServer(web.NewServer(mem, st, web.Options{}))
	t.Cleanup(ts.Close)
	jar, _ := cookiejar.New(nil)
	c := &http.Client{Jar: jar, CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}
	return &browser{t: t, ts: ts, c: c, mem: mem}, st
}

func link(t *testing.T, st holomem.Store, from, to int64, kind holomem.EdgeKind) {
	t.Helper()
	if _, err := st.CreateEdge(t.Context(), &holomem.Edge{From: from, To: to, Kind: kind, Weight: 1, Origin: "test"}); err != nil {
		t.Fatal(err)
	}
}

var svgNodeRE = regexp.MustCompile(`<a href="/facts/(\d+)" tabindex="-1"><circle class="node d(\d)" cx="([0-9.]+)" cy="([0-9.]+)"`)

func TestUI_GraphPage(t *testing.T) {
	b, st := newBrowserWithStore(t)
	var ids []int64
	for i := range 8 {
		ids = append(ids, b.remember(fmt.Sprintf("graph fact %d about the deploy pipeline", i)))
	}
	link(t, st, ids[0], ids[1], holomem.EdgeCausal)
	link(t, st, ids[2], ids[0], holomem.EdgeTemporal)
	link(t, st, ids[0], ids[3], "part_of")
	link(t, st, ids[0], ids[4], "hnsw_l1") // index structure: never drawn
	link(t, st, ids[1], ids[5], holomem.EdgeSimilar)
	link(t, st, ids[5], ids[6], holomem.EdgeCausal) // depth 3: never drawn

	r := b.get(fmt.Sprintf("/facts/%d/graph", ids[0]))
	if r.status != http.StatusOK {
		t.Fatalf("graph page: %d %.300s", r.status, r.body)
	}
	nodes := svgNodeRE.FindAllSubmatch(r.body, -1)
	got := map[string]string{}
	for _, m := range nodes {
		got[string(m[1])] = string(m[2])
	}
	want := map[string]string{fmt.Sprint(ids[0]): "0", fmt.Sprint(ids[1]): "1", fmt.Sprint(ids[2]): "1", fmt.Sprint(ids[3]): "1"}
	if fmt.Sprint(got) != fmt.Sprint(want) {
		t.Errorf("depth 1 nodes (id: depth) = %v, want %v", got, want)
	}
	for _, s := range []string{`class="edge ek-causal"`, `class="edge ek-temporal"`, `class="edge ek-part"`, `<span class="swatch ek-causal"></span>causal (1)`} {
		if !bytes.Contains(r.body, []byte(s)) {
			t.Errorf("depth 1 page lacks %s", s)
		}
	}
	if bytes.Contains(r.body, []byte("hnsw_l1")) {
		t.Error("the page draws an HNSW layer edge")
	}
	// Deterministic: the same graph gives the same picture, byte for byte.
	if again := b.get(fmt.Sprintf("/facts/%d/graph", ids[0])); !bytes.Equal(svgOf(again.body), svgOf(r.body)) {
		t.Error("two loads drew different pictures")
	}

	r = b.get(fmt.Sprintf("/facts/%d/graph?depth=2", ids[0]))
	if n := len(svgNodeRE.FindAll(r.body, -1)); n != 5 {
		t.Errorf("depth 2: %d nodes, want 5 (start, 3 neighbours, 1 at depth 2)", n)
	}
	if !bytes.Contains(r.body, []byte(`class="edge ek-similar"`)) || bytes.Contains(r.body, []byte(fmt.Sprintf(`href="/facts/%d" tabindex="-1"`, ids[6]))) {
		t.Errorf("depth 2 should draw the similar_to edge and stop before #%d", ids[6])
	}
	for _, q := range []string{"depth=3", "depth=0", "depth=x"} {
		if r := b.get(fmt.Sprintf("/facts/%d/graph?%s", ids[0], q)); r.status != http.StatusBadRequest {
			t.Errorf("?%s: %d, want 400", q, r.status)
		}
	}
	if r := b.get(fmt.Sprintf("/facts/%d/graph", ids[7])); r.status != http.StatusOK || !bytes.Contains(r.body, []byte("has no edges yet")) {
		t.Errorf("a fact without edges: %d %.300s", r.status, r.body)
	}
}

func svgOf(body []byte) []byte {
	i, j := bytes.Index(body, []byte("<svg")), bytes.Index(body, []byte("</svg>"))
	if i < 0 || j < i {
		return nil
	}
	return body[i:j]
}

// TestUI_GraphPageCut: a hub with more neighbours than the picture holds
// is drawn cut, and the page says how many it left out.
func TestUI_GraphPageCut(t *testing.T) {
	b, st := newBrowserWithStore(t)
	hub := b.remember("the hub fact")
	for i := range 45 {
		link(t, st, hub, b.remember(fmt.Sprintf("spoke number %d", i)), holomem.EdgeTemporal)
	}
	r := b.get(fmt.Sprintf("/facts/%d/graph", hub))
	if n := len(svgNodeRE.FindAll(r.body, -1)); n != 40 {
		t.Errorf("%d nodes drawn, want the cap of 40", n)
	}
	if !bytes.Contains(r.body, []byte("6 more neighbours were left out")) {
		t.Errorf("no cut note: %.500s", svgOf(r.body))
	}
}

func TestUI_CentralPage(t *testing.T) {
	b, st := newBrowserWithStore(t)
	hub := b.remember("central hub: the deploy runbook")
	var spokes []int64
	for i := range 5 {
		s := b.remember(fmt.Sprintf("incident %d followed the runbook", i))
		spokes = append(spokes, s)
		link(t, st, s, hub, holomem.EdgeCausal)
	}
	link(t, st, spokes[0], spokes[1], holomem.EdgeSimilar) // ignored unless ?similar=1
	link(t, st, spokes[0], spokes[2], "hnsw_l2")           // never counted
	r := b.get("/graph")
	if r.status != http.StatusOK {
		t.Fatalf("central page: %d %.300s", r.status, r.body)
	}
	first := regexp.MustCompile(`<tr><td>1</td><td><a href="/facts/(\d+)/graph">#\d+</a></td><td>[0-9.]+</td><td>(\d+)</td>`).FindSubmatch(r.body)
	if first == nil || string(first[1]) != fmt.Sprint(hub) || string(first[2]) != "5" {
		t.Errorf("first central fact = %q, want #%d with degree 5", first, hub)
	}
	if !bytes.Contains(r.body, []byte("PageRank over 5 edges")) || bytes.Contains(r.body, []byte("hnsw_l2")) {
		t.Errorf("central page counts the wrong edges: %.600s", r.body[bytes.Index(r.body, []byte("<main")):])
	}
	// The ranking is kept for a minute: an edge added now shows later.
	link(t, st, spokes[3], spokes[4], holomem.EdgeCausal)
	if r := b.get("/graph"); !bytes.Contains(r.body, []byte("PageRank over 5 edges")) {
		t.Error("a second load within the minute did not reuse the ranking")
	}
	if r := b.get("/graph?similar=1"); !bytes.Contains(r.body, []byte("PageRank over 7 edges")) {
		t.Error("?similar=1 does not add the similar_to edge (to the 6 causal ones)")
	}
	if r := b.get("/graph?namespace=empty"); !strings.Contains(string(r.body), "No edges between facts here yet") {
		t.Error("an empty namespace has no empty note")
	}
	if r := b.get("/graph?kind=hnsw_l2"); !bytes.Contains(r.body, []byte("PageRank over 5 edges")) {
		t.Error("?kind=hnsw_l2 added the index layer")
	}
	if r := b.get("/graph?kind=Bad%20Kind"); r.status != http.StatusBadRequest {
		t.Errorf("?kind=Bad Kind: %d, want 400", r.status)
	}
}

// TestUI_GraphEscaping: content and categories with markup are text in
// the picture's titles, the node table and the central list.
func TestUI_GraphEscaping(t *testing.T) {
	b, st := newBrowserWithStore(t)
	evil := `<script>alert(1)</script>"><img src=x onerror=alert(2)></title></svg><b>x`
	a := b.remember("a " + evil)
	c := b.remember("c " + evil)
	link(t, st, a, c, "my-kind")
	for _, path := range []string{fmt.Sprintf("/facts/%d/graph", a), fmt.Sprintf("/facts/%d/graph?depth=2", c), "/graph?kind=my-kind"} {
		r := b.get(path)
		for _, raw := range []string{"<script>alert", "<img src=x", "</title></svg><b>"} {
			if bytes.Contains(r.body, []byte(raw)) {
				t.Errorf("GET %s: %q is in the page unescaped", path, raw)
			}
		}
		if !bytes.Contains(r.body, []byte("&lt;script&gt;alert(1)&lt;/script&gt;")) {
			t.Errorf("GET %s: the content is not shown as text", path)
		}
	}
}
