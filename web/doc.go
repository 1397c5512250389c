// Package web serves holomem over HTTP: HTML pages for people at /, a
// JSON API under /api, a health check at /healthz, and (optionally) the MCP
// streamable-HTTP handler at /mcp.
//
// # Pages
//
// Server-rendered html/template pages (templates/, assets/ via go:embed)
// that work without JavaScript: every action is a plain link or form and a
// POST answers 303 to the page that shows its result. htmx (assets/, fetched
// by gen_htmx.sh from npm with a checked SHA-256) only makes navigation
// swap the page in place.
//
//	GET  /                         search (hybrid recall, per-channel <meter>s) or the newest facts
//	GET  /browse                   facts by filters and sort, keyset pages; the URL holds the view (needs a holomem.FactBrowser store)
//	GET  /facts/{id}               a fact: badge, tags, trust, counts, anchor, entities, edges, causal chain
//	GET  /facts/{id}/graph         the fact's neighbourhood (?depth=1|2) as server-made SVG
//	GET  /graph                    a namespace's most central facts (PageRank) with their degree
//	POST /facts/{id}/edit          content, category, tags
//	POST /facts/{id}/feedback      helpful=true|false
//	GET  /facts/{id}/forget        confirmation; POST with confirm=yes forgets
//	POST /facts/{id}/supersede     old=ID (this fact replaces it)
//	POST /facts/{id}/link          to=ID kind=K
//	GET  /probe?entity=            facts about an entity and related entities
//	GET  /add, POST /add           action=check shows near-duplicates and contradictions, action=save stores
//	GET  /status                   Options.Status (doctor's findings), the store's counts, SVG charts
//	                               of facts per day and hook outcomes per day
//	GET  /import, POST /import     upload (jsonl, gh JSON, zip of markdown) run by Options.Import
//	GET  /import/{job}             progress, reloading itself until the job ends
//	GET  /login, POST /login       with Options.Token: the token for an HttpOnly session cookie
//
// Every page is sent with a Content-Security-Policy that allows scripts
// and styles from this server only (no inline script or style), with
// Cache-Control: no-store, and every POST needs the form's CSRF token (an
// HMAC of a per-browser random cookie under a per-process secret) on top
// of the cross-origin and Host checks below. The pages curate the whole
// database: a fact page opens a fact of any namespace; ?namespace= picks
// the namespace searched and listed.
//
// # Model
//
// A [Server] is an http.Handler over a [holomem.Memory] and its
// store (a [Reader], reads only). Handlers only decode, check the namespace and encode:
// every rule and every write lives in the memory.
//
//	POST   /api/facts                 remember (201 new, 200 existing) -> holomem.Remembered
//	GET    /api/facts                 list: ?category= ?tag= ?source= ?limit= ?offset=
//	GET    /api/facts/{id}            one fact
//	PATCH  /api/facts/{id}            update (FactPatch)
//	DELETE /api/facts/{id}            forget (204)
//	POST   /api/facts/{id}/feedback   {"helpful": true}
//	GET    /api/facts/{id}/edges      edges touching the fact (?kind=)
//	POST   /api/supersede             {"old": 1, "new": 2}
//	POST   /api/recall                holomem.Query JSON (+ "full", "budget") -> holomem.Result
//	GET    /api/recall                ?q= ?limit= ?offset= ?category= ?min_trust= ?ppr= ?follow_causal= ?full= ?budget=
//	GET    /api/probe                 ?entity= ?full=
//	GET    /api/related               ?entity=
//	GET    /api/reason                ?entity=a&entity=b ?full=
//	POST   /api/edges                 {"from":1,"to":2,"kind":"causal","weight":1}
//	DELETE /api/edges                 ?from=&to=&kind= (or the same as a JSON body)
//	GET    /api/stats                 holomem.Stats
//	GET    /healthz                   {"status":"ok","version":"..."}; with a token, a request
//	                                  without it gets only "ok" (503 "unavailable"), no detail
//
// Recall answers with snippets: each hit's "snippet" is the part of the
// fact (at most 320 characters) where the query's words are densest, with
// "matches" (byte offsets in the snippet) and, for a long fact, the
// "passage" it came from; fact.content is empty unless full=1 (or "full":
// true). budget=N bounds the whole body to about N tokens (characters / 4):
// hits are dropped from the end, and "omitted" and "next_offset" say how
// many and the offset that returns them.
//
// # Namespaces
//
// A request's namespace is the body's "namespace" field where the endpoint
// has one, else ?namespace=, else the X-Holomem-Namespace header, else
// Options.Namespace. Endpoints that take fact ids answer 404 for a fact of
// another namespace.
//
// # Errors
//
// Every error is JSON: {"error": "...", "code": "not_found"}. One table,
// errorCodes, maps the domain sentinels to statuses (ErrNotFound 404,
// ErrInvalid 400, ErrConflict 409, ErrNoEmbedder 503) next to the transport
// errors (bad JSON 400, body over Options.MaxBodyBytes 413, token 401 with
// WWW-Authenticate). Anything else is a 500 "internal error" whose detail is
// logged with slog and never sent. Unknown JSON fields are rejected.
//
// # Security
//
// With Options.Token set every path requires "Authorization: Bearer
// <token>" (or the session cookie /login sets), compared in constant time,
// except a bare /healthz probe, /login itself and the two assets the login
// page links (/static/style.css, /static/htmx.min.js: the same bytes in
// every binary). /static/ never lists a directory. /login answers 429 to an
// address for a minute after 5 wrong tokens. Cookies are Secure when the
// request came over TLS, directly or through one of
// Options.TrustedProxies saying X-Forwarded-Proto: https. Use
// [ListenAddrAllowed] before binding: it refuses a non-loopback address
// without a token, or with one shorter than [MinRemoteTokenLen] characters.
//
// The default is an unauthenticated loopback port, which a web page in the
// user's browser can reach. So cross-origin browser writes are refused
// (http.CrossOriginProtection: Sec-Fetch-Site or Origin vs Host), and a
// request that arrives on a loopback address must name a loopback host,
// which defeats DNS rebinding. Both answer 403 {"code":"forbidden"};
// non-browser clients send neither header and are unaffected.
//
// The Server sets no timeouts: the caller's http.Server should set
// ReadHeaderTimeout and IdleTimeout (not WriteTimeout, which would cut
// MCP's long-lived event streams).
package web
