// Package backend chooses the store an address names, by its scheme, in
// one place: each backend registers the schemes it opens (package sqlite:
// "sqlite:" and plain file paths; package postgres: "postgres://" and
// "postgresql://"), and the command line opens, classifies and redacts
// --db values here instead of asking each backend "is this yours?". An
// address with a scheme nobody registered is an error that lists the known
// ones, rather than a file of that odd name.
//
// Backends register from an init function of their package, the way
// database/sql drivers do; a program gets the backends it imports.
package backend
