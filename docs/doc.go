// Package docs holds holomem's user documentation (the markdown files in
// this directory) and no code. Its test keeps the documentation whole: every
// relative link of README.md and docs/*.md names a file of the repository
// (and a heading of it, when the link has a fragment), README.md stays short
// enough to read, every "docs/design.md §N" a Go comment cites is a section
// of design.md, and no page speaks of the project's own tracker or work log.
package docs
