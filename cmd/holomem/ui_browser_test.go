package main

import (
	"bytes"
	"context"
	"flag"
	"io"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/chromedp/cdproto/cdp"
	"github.com/chromedp/cdproto/log"
	"github.com/chromedp/cdproto/page"
	"github.com/chromedp/chromedp"
	"github.com/chromedp/chromedp/kb"
)

var updateScreenshots = flag.Bool("update", false, "rewrite the screenshots docs/web.md shows (docs/ui/*.png) from the browser test")

// syncBuffer is a bytes.Buffer safe to read while the server writes it.
type syncBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (s *syncBuffer) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(p)
}

func (s *syncBuffer) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.String()
}

// findBrowser returns the Chromium to drive: $HOLOMEM_CHROME, else the
// first of the usual names on $PATH.
func findBrowser() string {
	if p := os.Getenv("HOLOMEM_CHROME"); p != "" {
		return p
	}
	for _, n := range []string{"chromium", "chromium-browser", "google-chrome", "google-chrome-stable", "headless-shell"} {
		if p, err := exec.LookPath(n); err == nil {
			return p
		}
	}
	return ""
}

// startUIServe runs `holomem serve` in-process on a free loopback port over
// the SQLite file db and returns its base URL (without the trailing slash).
func startUIServe(t *testing.T, db string) string {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	var out, errb syncBuffer
	done := make(chan int, 1)
	go func() {
		done <- run(ctx, []string{"--db", db, "--global", "--no-model", "serve", "--addr", "127.0.0.1:0", "--refresh", "0"}, strings.NewReader(""), &out, &errb)
	}()
	t.Cleanup(func() {
		cancel()
		select {
		case <-done:
		case <-time.After(10 * time.Second):
			t.Error("holomem serve did not stop within 10s")
		}
	})
	re := regexp.MustCompile(`http://[0-9.:]+`)
	deadline := time.Now().Add(30 * time.Second)
	for time.Now().Before(deadline) {
		if u := re.FindString(out.String()); u != "" {
			return u
		}
		select {
		case code := <-done:
			t.Fatalf("holomem serve exited %d: %s", code, errb.String())
		case <-time.After(20 * time.Millisecond):
		}
	}
	t.Fatalf("holomem serve printed no URL: %q %q", out.String(), errb.String())
	return ""
}

// xssContent is a fact made of everything the pages must show as text.
const xssContent = "<script>window.pwned=1</script> \"><img src=x onerror=\"window.pwned=2\"> <a href=\"javascript:window.pwned=3\">click</a> \u202eRTL\u202c zero\u200bwidth"

// TestWebUI_Browser drives the pages in a real headless Chromium against a
// real `holomem serve` over a real SQLite file, asserting on the DOM. With
// -update it rewrites the screenshots (docs/ui/*.png).
func TestWebUI_Browser(t *testing.T) {
	browser := browserOrSkip(t)
	c := newCLI(t)
	c.ok("add", "We deploy nginx with Ansible; the playbook is deploy/nginx.yml", "--category", "project", "--tags", "ops,nginx")
	c.ok("add", "Alice prefers dark mode in the editor", "--category", "user_pref")
	c.ok("add", xssContent, "--category", "security")
	c.ok("add", "Issue 42: login page crashes on empty password in Safari", "--category", "issue")
	c.ok("add", "PR 43 fixes the login crash by validating the password field", "--category", "pr")
	c.ok("link", "4", "5", "--kind", "causal")
	// A JSONL file to import through the page, exported from another store.
	src := &cli{t: t, db: filepath.Join(t.TempDir(), "src.db")}
	src.ok("add", "Imported: the staging database is reset every Sunday night", "--category", "project")
	src.ok("add", "Imported: backups are kept for 30 days", "--category", "project")
	jsonl := filepath.Join(t.TempDir(), "export.jsonl")
	src.ok("export", "--out", jsonl)

	base := startUIServe(t, c.db)

	bs := startBrowser(t, browser)
	ctx := bs.ctx

	pageText := func() string {
		s, _ := chromedp.Run(ctx, chromedp.Text(chromedp.CSS("body")))
		return s
	}
	do := func(t *testing.T, what string, steps ...chromedp.Action[chromedp.Void]) {
		t.Helper()
		if err := chromedp.Do(ctx, steps...); err != nil {
			t.Fatalf("%s: %v\npage text: %.2000s", what, err, pageText())
		}
	}
	// waitFor polls a JavaScript condition (a page swap by htmx finishes
	// after the click returns).
	waitFor := func(t *testing.T, what, js string) {
		t.Helper()
		// A reload (the import page refreshes itself) destroys the
		// context the poll runs in: poll again until the deadline.
		deadline := time.Now().Add(15 * time.Second)
		for {
			_, err := chromedp.Run(ctx, chromedp.Poll[bool](js, chromedp.WithPollingTimeout(time.Until(deadline))))
			if err == nil {
				return
			}
			if time.Now().After(deadline) || ctx.Err() != nil {
				t.Fatalf("%s: %v\npage text: %.2000s", what, err, pageText())
			}
			time.Sleep(50 * time.Millisecond)
		}
	}
	text := func(t *testing.T, sel string) string {
		t.Helper()
		s, err := chromedp.Run(ctx, chromedp.Text(chromedp.CSS(sel)))
		if err != nil {
			t.Fatalf("read %s: %v\npage text: %.2000s", sel, err, pageText())
		}
		return s
	}
	count := func(t *testing.T, js string) int {
		t.Helper()
		n, err := chromedp.Run(ctx, chromedp.Evaluate[int](js))
		if err != nil {
			t.Fatalf("evaluate %s: %v", js, err)
		}
		return n
	}
	// openPanels opens the <details> panels of a fact page.
	openPanels := func(ctx context.Context, t *chromedp.Target) (chromedp.Void, error) {
		_, err := chromedp.Evaluate[bool](`document.querySelectorAll('details.panel').forEach(d => d.open = true), true`)(ctx, t)
		return chromedp.Void{}, err
	}
	shot := func(t *testing.T, name string) {
		t.Helper()
		if !*updateScreenshots {
			return
		}
		png, err := chromedp.Run(ctx, chromedp.FullScreenshot(100))
		if err != nil {
			t.Fatalf("screenshot %s: %v", name, err)
		}
		dir := filepath.Join("..", "..", "docs", "ui")
		if err := os.MkdirAll(dir, 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(dir, name+".png"), png, 0o644); err != nil {
			t.Fatal(err)
		}
	}

	t.Run("search", func(t *testing.T) {
		do(t, "search", chromedp.Navigate(base+"/"), chromedp.WaitVisible(chromedp.CSS(`input[name=q]`)),
			chromedp.SendKeys(chromedp.CSS(`input[name=q]`), "how do we deploy nginx"),
			chromedp.Submit(chromedp.CSS(`input[name=q]`)))
		waitFor(t, "hits", `document.querySelector('#hit-1') !== null`)
		if ch := text(t, "#channels"); !strings.Contains(ch, "fts, jaccard, hrr") {
			t.Errorf("channels note = %q", ch)
		}
		if n := count(t, `document.querySelectorAll('#hit-1 .bars meter').length`); n != 3 {
			t.Errorf("hit #1 has %d score bars, want 3 (fts, jaccard, hrr)", n)
		}
		if n := count(t, `Math.round(1000*document.querySelector('#hit-1 .bars meter').value)`); n <= 0 {
			t.Errorf("fts bar of hit #1 = %d/1000, want > 0", n)
		}
		shot(t, "search")
	})

	t.Run("xss renders as text", func(t *testing.T) {
		do(t, "open", chromedp.Navigate(base+"/facts/3"), chromedp.WaitVisible(chromedp.CSS(`#content`)))
		// Shown as text, with the bidi controls as visible escapes (an
		// override must not reverse what a person reads).
		want := strings.NewReplacer("\u202e", `\u202e`, "\u202c", `\u202c`).Replace(xssContent)
		if got := text(t, "#content"); got != want {
			t.Errorf("content shown as %q, want the text %q", got, want)
		}
		if n := count(t, `document.querySelectorAll('main img, main script, #content a').length`); n != 0 {
			t.Errorf("%d elements were created from the fact's content", n)
		}
		if n := count(t, `window.pwned === undefined ? 0 : 1`); n != 0 {
			t.Error("the fact's content ran as script")
		}
		do(t, "search it", chromedp.Navigate(base+"/?q=script+pwned+img"), chromedp.WaitVisible(chromedp.CSS(`#hits`)))
		if n := count(t, `document.querySelectorAll('#hits img, #hits script').length + (window.pwned === undefined ? 0 : 1)`); n != 0 {
			t.Errorf("search results: %d elements or scripts from the content", n)
		}
		if got := text(t, "#hit-3 .content"); !strings.Contains(got, "<script>") {
			t.Errorf("search result shown as %q", got)
		}
	})

	t.Run("open a fact from the results", func(t *testing.T) {
		do(t, "search", chromedp.Navigate(base+"/?q=login+crash"), chromedp.WaitVisible(chromedp.CSS(`#hits`)),
			chromedp.Click(chromedp.CSS(`#hit-4 a.id`)))
		waitFor(t, "fact page", `location.pathname === '/facts/4' && document.querySelector('#fact') !== null`)
		if got := text(t, "#category"); got != "issue" {
			t.Errorf("category badge = %q", got)
		}
		if got := text(t, "#edges"); !strings.Contains(got, "causal") || !strings.Contains(got, "#5") {
			t.Errorf("edges = %q, want the causal edge to #5", got)
		}
		if got := text(t, "#chain"); !strings.Contains(got, "led to") || !strings.Contains(got, "#5") {
			t.Errorf("chain = %q", got)
		}
		if n := count(t, `document.querySelectorAll('#entities a[href^="/probe"]').length`); n == 0 {
			t.Error("no entity links to probe")
		}
		shot(t, "fact")
	})

	t.Run("edit inline", func(t *testing.T) {
		do(t, "edit", chromedp.Navigate(base+"/facts/2"), chromedp.WaitVisible(chromedp.CSS(`#fact`)),
			chromedp.Click(chromedp.CSS(`#edit-panel summary`)),
			chromedp.SetValue(chromedp.CSS(`#edit textarea[name=content]`), "Alice prefers dark mode in every editor"),
			chromedp.SetValue(chromedp.CSS(`#edit input[name=category]`), "preference"),
			chromedp.SetValue(chromedp.CSS(`#edit input[name=tags]`), "alice, ui"),
			chromedp.Click(chromedp.CSS(`#edit button[type=submit]`)))
		waitFor(t, "saved", `document.querySelector('#flash')?.textContent.includes('Saved')`)
		if got := text(t, "#content"); got != "Alice prefers dark mode in every editor" {
			t.Errorf("content after edit = %q", got)
		}
		if got := text(t, "#category") + " " + text(t, "#tags"); !strings.Contains(got, "preference") || !strings.Contains(got, "alice") || !strings.Contains(got, "ui") {
			t.Errorf("category and tags after edit = %q", got)
		}
	})

	t.Run("feedback", func(t *testing.T) {
		do(t, "helpful", chromedp.Navigate(base+"/facts/1"), chromedp.WaitVisible(chromedp.CSS(`#helpful`)), chromedp.Click(chromedp.CSS(`#helpful`)))
		waitFor(t, "trust up", `document.querySelector('#flash')?.textContent.includes('helpful')`)
		if got := text(t, "#trust"); !strings.HasPrefix(got, "0.55") {
			t.Errorf("trust after helpful = %q, want 0.55", got)
		}
		do(t, "unhelpful", chromedp.Click(chromedp.CSS(`#unhelpful`)))
		waitFor(t, "trust down", `document.querySelector('#flash')?.textContent.includes('unhelpful')`)
		if got := text(t, "#trust"); !strings.HasPrefix(got, "0.45") {
			t.Errorf("trust after unhelpful = %q, want 0.45", got)
		}
	})

	var newID string
	t.Run("add with a duplicate warning", func(t *testing.T) {
		do(t, "check", chromedp.Navigate(base+"/add"), chromedp.WaitVisible(chromedp.CSS(`#add`)),
			chromedp.SetValue(chromedp.CSS(`#add textarea[name=content]`), "We deploy nginx with Ansible; the playbook is deploy/nginx.yaml"),
			chromedp.SetValue(chromedp.CSS(`#add input[name=category]`), "project"),
			chromedp.Click(chromedp.CSS(`#check`)))
		waitFor(t, "report", `document.querySelector('#report') !== null`)
		if got := text(t, "#report"); !strings.Contains(got, "Near-duplicates") || !strings.Contains(got, "#1") {
			t.Errorf("report = %q, want fact #1 as a near-duplicate", got)
		}
		shot(t, "add")
		// Nothing was written by the check.
		if out := c.ok("list"); strings.Contains(out, "nginx.yaml") {
			t.Errorf("the check wrote the fact: %s", out)
		}
		do(t, "save", chromedp.Click(chromedp.CSS(`#save`)))
		waitFor(t, "saved", `document.querySelector('#flash')?.textContent.includes('Saved as')`)
		newID = text(t, "#flash a")
		newID = strings.TrimPrefix(newID, "#")
		if newID == "" {
			t.Fatal("no id for the saved fact")
		}
	})

	t.Run("supersede", func(t *testing.T) {
		if newID == "" {
			t.Skip("add failed")
		}
		do(t, "supersede", chromedp.Navigate(base+"/facts/"+newID), chromedp.WaitVisible(chromedp.CSS(`#fact`)),
			openPanels,
			chromedp.SetValue(chromedp.CSS(`#supersede input[name=old]`), "1"),
			chromedp.Click(chromedp.CSS(`#supersede button`)))
		waitFor(t, "superseded", `document.querySelector('#flash')?.textContent.includes('Superseded')`)
		do(t, "old fact", chromedp.Navigate(base+"/facts/1"), chromedp.WaitVisible(chromedp.CSS(`#fact`)))
		if got := text(t, "#fact h1"); !strings.Contains(got, "superseded by #"+newID) {
			t.Errorf("old fact heading = %q", got)
		}
	})

	t.Run("link", func(t *testing.T) {
		do(t, "link", chromedp.Navigate(base+"/facts/2"), chromedp.WaitVisible(chromedp.CSS(`#fact`)),
			openPanels,
			chromedp.SetValue(chromedp.CSS(`#link input[name=to]`), "#4"),
			chromedp.SetValue(chromedp.CSS(`#link select[name=kind]`), "temporal"),
			chromedp.Click(chromedp.CSS(`#link button`)))
		waitFor(t, "linked", `document.querySelector('#flash')?.textContent.includes('Linked')`)
		if got := text(t, "#edges"); !strings.Contains(got, "temporal") || !strings.Contains(got, "#4") {
			t.Errorf("edges after link = %q", got)
		}
	})

	t.Run("refused forms show their error", func(t *testing.T) {
		// htmx swaps only 2xx answers: these refusals showed nothing.
		for _, tc := range []struct {
			what string
			fill chromedp.Action[chromedp.Void]
			form string
			want string
		}{
			{"link to a missing fact", chromedp.SetValue(chromedp.CSS(`#link input[name=to]`), "999"), "#link", "not found"},
			{"supersede by itself", chromedp.SetValue(chromedp.CSS(`#supersede input[name=old]`), "2"), "#supersede", "cannot replace itself"},
			{"empty edit", chromedp.SetValue(chromedp.CSS(`#edit textarea[name=content]`), "   "), "#edit", "empty"},
		} {
			do(t, tc.what, chromedp.Navigate(base+"/facts/2"), chromedp.WaitVisible(chromedp.CSS(`#fact`)), openPanels,
				tc.fill, chromedp.Click(chromedp.CSS(tc.form+` button[type=submit], `+tc.form+` button`)))
			waitFor(t, tc.what, `document.querySelector('#ui-error')?.textContent.includes('`+tc.want+`')`)
			if got := count(t, `location.pathname === '/facts/2' && document.querySelector('#fact') !== null ? 1 : 0`); got != 1 {
				t.Errorf("%s: the page left the fact (at %s)", tc.what, text(t, "main"))
			}
		}
		if out := c.ok("get", "2"); !strings.Contains(out, "Alice prefers dark mode in every editor") {
			t.Errorf("a refused form changed fact 2: %s", out)
		}
	})

	t.Run("edges table at 1280 px", func(t *testing.T) {
		// A long fact among the edges squeezed the other columns until
		// their words broke letter by letter.
		long := strings.Repeat("the staging cluster rotates its certificates and restarts the ingress controllers ", 4)
		id := strings.TrimPrefix(strings.TrimSpace(c.ok("add", long, "--category", "ops")), "remembered #")
		c.ok("link", "2", id, "--kind", "causal")
		do(t, "edges", chromedp.Navigate(base+"/facts/2"), chromedp.WaitVisible(chromedp.CSS(`#edges table`)))
		broken := count(t, `[...document.querySelectorAll('#edges th, #edges td:not(:nth-child(3))')].filter(td => {
			const r = document.createRange(); r.selectNodeContents(td);
			return new Set([...r.getClientRects()].map(x => Math.round(x.top))).size > 1;
		}).length`)
		if broken != 0 {
			t.Errorf("%d cells of the edges table's short columns wrap at 1280 px, want none", broken)
		}
	})

	t.Run("forget with confirmation", func(t *testing.T) {
		do(t, "forget", chromedp.Navigate(base+"/facts/5"), chromedp.WaitVisible(chromedp.CSS(`#forget`)), chromedp.Click(chromedp.CSS(`#forget`)))
		waitFor(t, "confirmation", `document.querySelector('#confirm') !== null`)
		if out := c.ok("get", "5"); !strings.Contains(out, "PR 43") {
			t.Fatalf("the confirmation page forgot already: %s", out)
		}
		do(t, "confirm", chromedp.Click(chromedp.CSS(`#confirm`)))
		waitFor(t, "back to search", `location.pathname === '/' && document.querySelector('input[name=q]') !== null`)
		do(t, "gone", chromedp.Navigate(base+"/facts/5"), chromedp.WaitVisible(chromedp.CSS(`#error`)))
		if got := text(t, "#error"); !strings.Contains(got, "not found") {
			t.Errorf("forgotten fact page = %q", got)
		}
	})

	t.Run("status", func(t *testing.T) {
		do(t, "status", chromedp.Navigate(base+"/status"), chromedp.WaitVisible(chromedp.CSS(`#warnings`)))
		body := text(t, "main")
		for _, want := range []string{"channels live", "fts, jaccard, hrr", "model", "stale anchors", "prompt hook", "facts per namespace", "default"} {
			if !strings.Contains(body, want) {
				t.Errorf("status page lacks %q", want)
			}
		}
		shot(t, "status")
	})

	t.Run("import with progress", func(t *testing.T) {
		do(t, "upload", chromedp.Navigate(base+"/import"), chromedp.WaitVisible(chromedp.CSS(`#import`)),
			chromedp.SetUploadFiles(chromedp.CSS(`#import input[type=file]`), []string{jsonl}),
			chromedp.Click(chromedp.CSS(`#import button`)))
		waitFor(t, "job finished", `document.querySelector('#job-done, #job-error') !== null`)
		if got := text(t, "#job"); !strings.Contains(got, "2 new facts") {
			t.Errorf("import result = %q", got)
		}
		do(t, "search imported", chromedp.Navigate(base+"/?q=staging+database+reset"), chromedp.WaitVisible(chromedp.CSS(`#hits`)))
		if got := text(t, "#hits"); !strings.Contains(got, "Sunday") {
			t.Errorf("imported fact not found: %q", got)
		}
	})

	var jobPath string // a finished import's page
	t.Run("import gh JSON, a markdown zip and a malformed file", func(t *testing.T) {
		dir := t.TempDir()
		files := map[string][]byte{
			"issues.json": ghExport(t, 3, 1),
			"notes.zip":   zipNotes(t, map[string]string{"notes/keys.md": "# Keys\nRotate the signing keys every 90 days.\n"}),
			"broken.json": []byte("<html>Sign in to GitHub</html>"),
		}
		for _, tc := range []struct{ file, sel, want string }{
			{"issues.json", "#job-done", "4 new facts, 0 already there, 1 edges"},
			{"notes.zip", "#job-done", "1 new facts"},
			{"broken.json", "#job-error", "Nothing imported: no record of broken.json could be read as GitHub JSON"},
		} {
			path := filepath.Join(dir, tc.file)
			if err := os.WriteFile(path, files[tc.file], 0o600); err != nil {
				t.Fatal(err)
			}
			do(t, "upload "+tc.file, chromedp.Navigate(base+"/import"), chromedp.WaitVisible(chromedp.CSS(`#import`)),
				chromedp.SetUploadFiles(chromedp.CSS(`#import input[type=file]`), []string{path}),
				chromedp.Click(chromedp.CSS(`#import button`)))
			waitFor(t, tc.file+" finished", `document.querySelector('#job-done, #job-error') !== null`)
			if got := text(t, "#job"); !strings.Contains(got, tc.want) || count(t, `document.querySelectorAll('`+tc.sel+`').length`) != 1 {
				t.Errorf("%s: job shows %q, want %s with %q", tc.file, got, tc.sel, tc.want)
			}
		}
		jobPath, _ = chromedp.Run(ctx, chromedp.Evaluate[string](`location.pathname`))
		if got := text(t, "#job-details"); !strings.Contains(got, "broken.json:1: not a JSON object or array") {
			t.Errorf("malformed file's details = %q", got)
		}
	})

	t.Run("keyboard", func(t *testing.T) {
		for _, path := range []string{"/?q=nginx+deploy+login", "/facts/4", "/add", "/import", "/status"} {
			keyboardWalk(t, ctx, base+path)
		}
		// One Tab stop per hit (its content link; the #id link beside it
		// goes to the same page and is skipped).
		do(t, "search", chromedp.Navigate(base+"/?q=nginx+deploy+login"), chromedp.WaitVisible(chromedp.CSS(`#hits`)))
		if n := count(t, `[...document.querySelectorAll('.hit')].filter(h => h.querySelectorAll('a:not([tabindex="-1"])').length === 1).length`); n == 0 ||
			n != count(t, `document.querySelectorAll('.hit').length`) {
			t.Errorf("%d hits with exactly one Tab stop, want every hit", n)
		}
		// The first Tab stop skips the menu: Enter on it, Tab, and the
		// focus is on the fact page's first control.
		do(t, "skip link", chromedp.Navigate(base+"/facts/4"), chromedp.WaitVisible(chromedp.CSS(`#fact`)),
			chromedp.KeyEvent(kb.Tab), chromedp.KeyEvent(kb.Enter), chromedp.KeyEvent(kb.Tab))
		if got := count(t, `document.activeElement === document.querySelector('main a[href], main button') ? 1 : 0`); got != 1 {
			t.Errorf("after the skip link, Tab focused %q", text(t, ":focus"))
		}
	})

	t.Run("390px wide, no layout shift", func(t *testing.T) {
		pages := []string{"/", "/?q=nginx+deploy", "/?q=nginx&category=project&min_trust=0.1", "/facts/3", "/facts/4", "/facts/4/forget",
			"/add", "/import", "/status", "/probe?entity=nginx", "/login", "/facts/999"}
		if jobPath != "" {
			pages = append(pages, jobPath)
		}
		for _, path := range pages {
			do(t, "narrow "+path, chromedp.EmulateViewport(390, 844), chromedp.Navigate(base+path), chromedp.WaitVisible(chromedp.CSS(`main`)))
			// Layout shift since the page started loading (the Layout
			// Instability API; buffered entries arrive within a frame).
			cls, err := chromedp.Run(ctx, chromedp.Evaluate[float64](`new Promise(done => {
				let sum = 0;
				new PerformanceObserver(l => l.getEntries().forEach(e => { if (!e.hadRecentInput) sum += e.value; })).observe({type: 'layout-shift', buffered: true});
				requestAnimationFrame(() => setTimeout(() => done(sum), 100));
			})`, chromedp.EvalAwaitPromise))
			if err != nil {
				t.Fatalf("%s: layout shift: %v", path, err)
			}
			if cls > 0 {
				t.Errorf("%s: layout shift %.4f while loading, want 0 (give what loads late a fixed size)", path, cls)
			}
			if w := count(t, `document.documentElement.scrollWidth`); w > 390 {
				t.Errorf("%s is %d px wide at a 390 px viewport: it scrolls sideways", path, w)
			}
			if path == "/?q=nginx+deploy" {
				shot(t, "search-390")
			}
			// The forms folded in <details> too.
			if w := count(t, `document.querySelectorAll('details').forEach(d => d.open = true), document.documentElement.scrollWidth`); w > 390 {
				t.Errorf("%s with its panels open is %d px wide at a 390 px viewport", path, w)
			}
		}
		do(t, "wide again", chromedp.EmulateViewport(1280, 900))
	})

	bs.check(t)
}

// tabbablesJS lists, in document order, the controls a keyboard user must
// reach with Tab on the current page (every <details> opened first, so the
// forms inside count), and describes elements for messages.
const tabbablesJS = `(() => {
	document.querySelectorAll('details').forEach(d => d.open = true);
	window.__desc = e => e ? e.tagName.toLowerCase() + (e.id ? '#' + e.id : '') + (e.name ? '[name=' + e.name + ']' : '') +
		(e.getAttribute('href') ? '[href=' + e.getAttribute('href') + ']' : '') + ' "' + (e.textContent || e.value || '').trim().slice(0, 24) + '"' : 'none';
	window.__tab = [...document.querySelectorAll('a[href], button, input, select, textarea, summary, [tabindex]')].filter(e =>
		e.tabIndex >= 0 && !e.disabled && e.type !== 'hidden' && e.getClientRects().length > 0 && getComputedStyle(e).visibility !== 'hidden');
	return window.__tab.map(window.__desc);
})()`

// focusedJS describes the focused element: its place in window.__tab,
// whether it shows a focus ring, where it is.
const focusedJS = `(() => {
	const e = document.activeElement, cs = getComputedStyle(e), r = e.getBoundingClientRect();
	return {index: window.__tab.indexOf(e), desc: window.__desc(e), focusVisible: e.matches(':focus-visible'),
		outline: cs.outlineStyle !== 'none' && parseFloat(cs.outlineWidth) >= 2 && cs.outlineColor !== 'rgba(0, 0, 0, 0)',
		top: r.top + scrollY, left: r.left, inView: r.bottom > 0 && r.top < innerHeight && r.right > 0 && r.left < innerWidth};
})()`

type focusState struct {
	Index        int     `json:"index"`
	Desc         string  `json:"desc"`
	FocusVisible bool    `json:"focusVisible"`
	Outline      bool    `json:"outline"`
	Top          float64 `json:"top"`
	Left         float64 `json:"left"`
	InView       bool    `json:"inView"`
}

// keyboardWalk loads url, presses Tab until every control was focused and
// checks that each one gets focus, once, in document order (top to
// bottom), with a visible focus ring, scrolled into view.
func keyboardWalk(t *testing.T, ctx context.Context, url string) {
	t.Helper()
	if err := chromedp.Do(ctx, chromedp.Navigate(url), chromedp.WaitVisible(chromedp.CSS(`main`))); err != nil {
		t.Fatalf("open %s: %v", url, err)
	}
	want, err := chromedp.Run(ctx, chromedp.Evaluate[[]string](tabbablesJS))
	if err != nil || len(want) == 0 {
		t.Fatalf("%s: no controls (%v)", url, err)
	}
	var got []focusState
	first := -1 // where the first control got focus
	for len(got) < 2*len(want)+3 && (first < 0 || len(got) < first+len(want)) {
		st, err := chromedp.Run(ctx, chromedp.Evaluate[focusState](focusedJS))
		if err != nil {
			t.Fatalf("%s: %v", url, err)
		}
		if st.Index == 0 && first < 0 {
			first = len(got)
		}
		got = append(got, st)
		if err := chromedp.Do(ctx, chromedp.KeyEvent(kb.Tab)); err != nil {
			t.Fatal(err)
		}
	}
	// Where the walk starts (an autofocused field, or nothing) comes
	// before the first control; from there it is the whole list in order.
	if first < 0 || first+len(want) > len(got) {
		t.Fatalf("%s: Tab never reached %s: %v", url, want[0], got)
	}
	prevTop := -1.0
	for i, w := range want {
		g := got[first+i]
		if g.Index != i {
			t.Errorf("%s: Tab %d focused %s (control %d), want %s: the order skips or repeats controls", url, first+i+1, g.Desc, g.Index, w)
			return
		}
		if !g.FocusVisible || !g.Outline || !g.InView {
			t.Errorf("%s: %s has focus but no visible focus ring (focus-visible %v, outline %v, in view %v)", url, w, g.FocusVisible, g.Outline, g.InView)
		}
		if g.Top < prevTop-4 {
			t.Errorf("%s: Tab goes up the page to %s (y %.0f after %.0f)", url, w, g.Top, prevTop)
		}
		prevTop = g.Top
	}
}

// TestUICommand checks that `holomem ui` serves the pages on a free
// loopback port and prints the URL.
func TestUICommand(t *testing.T) {
	c := newCLI(t)
	c.ok("add", "We deploy nginx with Ansible", "--category", "project")
	ctx, cancel := context.WithCancel(t.Context())
	var out, errb syncBuffer
	done := make(chan int, 1)
	go func() {
		done <- run(ctx, []string{"--db", c.db, "--global", "--no-model", "ui"}, strings.NewReader(""), &out, &errb)
	}()
	defer func() {
		cancel()
		if code := <-done; code != 0 {
			t.Errorf("holomem ui exited %d: %s", code, errb.String())
		}
	}()
	re := regexp.MustCompile(`http://127\.0\.0\.1:[0-9]+`)
	var base string
	for deadline := time.Now().Add(30 * time.Second); base == "" && time.Now().Before(deadline); time.Sleep(20 * time.Millisecond) {
		base = re.FindString(out.String())
	}
	if base == "" || strings.HasSuffix(base, ":7777") {
		t.Fatalf("holomem ui printed %q, want a URL on a free loopback port", out.String())
	}
	resp, err := http.Get(base + "/?q=nginx")
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	body, _ := io.ReadAll(resp.Body)
	if resp.StatusCode != 200 || !strings.Contains(string(body), "Ansible") || !strings.HasPrefix(resp.Header.Get("Content-Type"), "text/html") {
		t.Errorf("GET /?q=nginx: %d %.300s", resp.StatusCode, body)
	}
}

// browserSession is a headless Chromium the web UI's browser tests drive:
// it accepts (and counts) JavaScript dialogs, which only content run as
// script would open, and collects Content-Security-Policy violations.
type browserSession struct {
	ctx     context.Context
	dialogs atomic.Int32
	mu      sync.Mutex
	csp     []string
}

// startBrowser starts Chromium at 1280x900; it is closed when t ends. Its
// context carries a 5-minute guard against hangs, not a speed check.
func startBrowser(t *testing.T, browser string) *browserSession {
	t.Helper()
	actx, acancel := chromedp.NewExecAllocator(context.Background(), append(chromedp.DefaultExecAllocatorOptions[:],
		chromedp.ExecPath(browser), chromedp.NoSandbox, chromedp.DisableGPU, chromedp.NoFirstRun,
		chromedp.Flag("disable-background-networking", true), chromedp.WindowSize(1280, 900))...)
	t.Cleanup(acancel)
	bctx, cancel := chromedp.NewContext(actx)
	t.Cleanup(cancel)
	bs := &browserSession{}
	// The first call starts the browser; it must not carry a timeout.
	if _, err := chromedp.Call(bctx, log.Enable, cdp.Empty{}); err != nil {
		t.Fatalf("start Chromium %s: %v", browser, err)
	}
	if err := chromedp.Listen(bctx, func(ev any) {
		switch e := ev.(type) {
		case *page.EventJavascriptDialogOpening:
			bs.dialogs.Add(1)
			go chromedp.Call(bctx, page.HandleJavaScriptDialog, page.HandleJavaScriptDialogParams{Accept: true}) //nolint:errcheck // best effort: the assertion is the count
		case *log.EventEntryAdded:
			if strings.Contains(e.Entry.Text, "Content Security Policy") {
				bs.mu.Lock()
				bs.csp = append(bs.csp, e.Entry.Text)
				bs.mu.Unlock()
			}
		}
	}); err != nil {
		t.Fatal(err)
	}
	ctx, stop := context.WithTimeout(bctx, 5*time.Minute)
	t.Cleanup(stop)
	bs.ctx = ctx
	return bs
}

// check fails t if a dialog opened or the policy was violated.
func (bs *browserSession) check(t *testing.T) {
	t.Helper()
	if n := bs.dialogs.Load(); n != 0 {
		t.Errorf("%d JavaScript dialogs opened (content ran as script?)", n)
	}
	bs.mu.Lock()
	defer bs.mu.Unlock()
	if len(bs.csp) != 0 {
		t.Errorf("Content-Security-Policy violations (htmx or a page needs inline code):\n%s", strings.Join(bs.csp, "\n"))
	}
}

// browserOrSkip returns the Chromium to drive, or skips t (in -short mode,
// or when none is installed) saying how to get one.
func browserOrSkip(t *testing.T) string {
	t.Helper()
	if testing.Short() {
		t.Skip("starts a browser")
	}
	browser := findBrowser()
	if browser == "" {
		t.Skip("no Chromium found (install it with `apt-get install -y chromium`, which .ci/run does, or set HOLOMEM_CHROME): browser tests skipped")
	}
	return browser
}
