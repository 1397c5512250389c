// Package web serves holomem over HTTP: a JSON API under /api, a health
// check at /healthz, and (optionally) the MCP streamable-HTTP handler at
// /mcp.
//
// # Model
//
// A [Server] is an http.Handler over a [holomem.Memory] and its
// [holomem.Store]. Handlers only decode, check the namespace and encode:
// all behaviour lives in the memory and the store.
//
//	POST   /api/facts                 remember (201 new, 200 existing) -> holomem.Remembered
//	GET    /api/facts                 list: ?category= ?tag= ?source= ?limit= ?offset=
//	GET    /api/facts/{id}            one fact
//	PATCH  /api/facts/{id}            update (FactPatch)
//	DELETE /api/facts/{id}            forget (204)
//	POST   /api/facts/{id}/feedback   {"helpful": true}
//	GET    /api/facts/{id}/edges      edges touching the fact (?kind=)
//	POST   /api/supersede             {"old": 1, "new": 2}
//	POST   /api/recall                holomem.Query JSON -> holomem.Result
//	GET    /api/recall                ?q= ?limit= ?category= ?min_trust= ?ppr= ?follow_causal=
//	GET    /api/probe                 ?entity=
//	GET    /api/related               ?entity=
//	GET    /api/reason                ?entity=a&entity=b
//	POST   /api/edges                 {"from":1,"to":2,"kind":"causal","weight":1}
//	DELETE /api/edges                 ?from=&to=&kind= (or the same as a JSON body)
//	GET    /api/stats                 holomem.Stats
//	GET    /healthz                   {"status":"ok","version":"..."}, never behind the token
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
// With Options.Token set every endpoint but /healthz requires
// "Authorization: Bearer <token>", compared in constant time. Use
// [ListenAddrAllowed] before binding: it refuses a non-loopback address
// without a token.
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
