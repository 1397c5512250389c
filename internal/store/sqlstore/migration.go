package sqlstore

import (
	"embed"
	"fmt"
	"sort"
	"strconv"
	"strings"
)

// Migration is one embedded schema migration, migration/<Version>_*.sql.
type Migration struct {
	Version int
	Name    string
	fsys    *embed.FS
}

// Text reads the migration's SQL. Only a migration being applied needs
// it: every process learns the latest version from the names alone
// (copying every file's SQL cost each process, a one-shot prompt hook too,
// tens of KiB of allocation at start).
func (m Migration) Text() (string, error) {
	b, err := m.fsys.ReadFile("migration/" + m.Name)
	return string(b), err
}

// Migrations returns the migrations of fsys's migration folder in order;
// the number before the first '_' of a file name is its schema version.
func Migrations(fsys *embed.FS) ([]Migration, error) {
	ents, err := fsys.ReadDir("migration")
	if err != nil {
		return nil, err
	}
	var ms []Migration
	for _, e := range ents {
		num, _, ok := strings.Cut(e.Name(), "_")
		v, err := strconv.Atoi(num)
		if !ok || err != nil || v <= 0 {
			return nil, fmt.Errorf("migration %s: name must start with a positive number and '_'", e.Name())
		}
		ms = append(ms, Migration{Version: v, Name: e.Name(), fsys: fsys})
	}
	sort.Slice(ms, func(i, j int) bool { return ms[i].Version < ms[j].Version })
	for i, m := range ms {
		if m.Version != i+1 {
			return nil, fmt.Errorf("migration %s: expected version %d", m.Name, i+1)
		}
	}
	return ms, nil
}

// LatestSchema is the schema version of the migrations of fsys.
func LatestSchema(fsys *embed.FS) int {
	ms, err := Migrations(fsys)
	if err != nil {
		panic(err) // the embedded files are part of the binary: a bad name is a build bug
	}
	return len(ms)
}
