// Package mcpserver serves holomem to AI agents over the Model Context
// Protocol, with the official Go SDK.
//
// # Model
//
// A [Server] wraps a [holomem.Memory] (which does all the work) and a
// store [Reader] (plain reads: get, edges). It registers one
// MCP tool per memory operation (remember, recall, get, update, forget,
// feedback, probe, related, reason, link, supersede, status) with typed
// inputs and outputs: the SDK derives JSON schemas from the Go structs in
// this package, validates arguments against them, and returns results both
// as structured content and as JSON text.
//
// The same Server runs over stdio ([Server.ServeStdio], for `holomem mcp`)
// and over streamable HTTP ([Server.Handler], mounted at /mcp by
// `holomem serve`).
//
// # Namespaces
//
// Every tool takes an optional namespace; calls that omit it use
// Options.Namespace. Tools that take fact ids check that each fact lives in
// the call's namespace and report not_found otherwise, so one namespace
// never reads or changes another's facts.
//
// # Errors
//
// Domain errors come back as tool results with IsError set and a text
// that starts with a stable code (not_found, invalid_argument, conflict,
// no_embedding_model, ...), then the reason and a hint a model can act on.
// The mapping is one table, errorCodes. Anything else is an internal error:
// it is logged with slog and the client only sees "internal error".
//
// # Caveats
//
// On stdio, lines that are not JSON-RPC messages are answered with a
// JSON-RPC error and skipped, because the SDK's reader ends the session at
// the first bad message. JSON-RPC batches are refused the same way.
// Authentication over HTTP is the caller's job (package web wraps the
// handler with its bearer token check).
package mcpserver
