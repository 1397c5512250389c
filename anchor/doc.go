// Package anchor reads the files facts are anchored to, and nothing else.
//
// An anchor names a file a fact describes by a path relative to a root (the
// project's git top level, or a configured directory) and the SHA-256 of its
// content when the fact was written; recall marks a fact stale when the file
// changes or vanishes. Because anchors arrive from agents over MCP and HTTP,
// reading one is an attack surface: an anchor of "/dev/zero" once made
// recall read until the process ran out of memory, a FIFO hung it, and the
// stale flag told callers whether arbitrary paths existed. So every read
// here is
//
//   - confined to the root: the path is relative, has no ".." element, and
//     is opened through [os.Root], so symlinks cannot lead out either;
//   - of regular files only (FIFOs, devices and directories are refused
//     without blocking: the open is non-blocking and checked with fstat);
//   - capped at [MaxSize] bytes and interruptible through its context.
//
// Paths that break the rules are never touched; a [Checker] reports them as
// unchecked rather than vanished, so a caller learns nothing about files
// outside the root.
package anchor
