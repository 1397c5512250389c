package sqlstore

import "github.com/holomem/holomem"

// Rows is what both drivers' result sets have in common (*sql.Rows and
// pgx.Rows); the caller closes them.
type Rows interface {
	Next() bool
	Scan(dest ...any) error
	Err() error
}

// Collect scans every row of rows with scan.
func Collect[T any](rows Rows, scan func(r Rows, v *T) error) ([]T, error) {
	var out []T
	for rows.Next() {
		var v T
		if err := scan(rows, &v); err != nil {
			return nil, err
		}
		out = append(out, v)
	}
	return out, rows.Err()
}

// ScanEntity scans a row of (id, namespace, name, fact count).
func ScanEntity(r Rows, e **holomem.Entity) error {
	*e = &holomem.Entity{}
	return r.Scan(&(*e).ID, &(*e).Namespace, &(*e).Name, &(*e).FactCount)
}

// ScanEntityRow scans a row of (id, namespace, name, key).
func ScanEntityRow(r Rows, e *EntityRow) error {
	return r.Scan(&e.ID, &e.Namespace, &e.Name, &e.Key)
}

// ScanAliasRow scans a row of (namespace, alias, alias key).
func ScanAliasRow(r Rows, a *AliasRow) error {
	return r.Scan(&a.Namespace, &a.Alias, &a.Key)
}

// EntityIDs returns the ids of es, in order.
func EntityIDs(es []*holomem.Entity) []int64 {
	ids := make([]int64, len(es))
	for i, e := range es {
		ids[i] = e.ID
	}
	return ids
}

// AddAliases appends to the entities es the aliases of rows of (entity
// id, alias), which hold only entities of es.
func AddAliases(es []*holomem.Entity, rows Rows) error {
	byID := make(map[int64]*holomem.Entity, len(es))
	for _, e := range es {
		byID[e.ID] = e
	}
	for rows.Next() {
		var id int64
		var alias string
		if err := rows.Scan(&id, &alias); err != nil {
			return err
		}
		byID[id].Aliases = append(byID[id].Aliases, alias)
	}
	return rows.Err()
}

// ScanID scans a row of one id.
func ScanID(r Rows, id *int64) error { return r.Scan(id) }

// AliasMap reads rows of (alias key, entity name) into a map.
func AliasMap(rows Rows) (map[string]string, error) {
	out := map[string]string{}
	for rows.Next() {
		var k, name string
		if err := rows.Scan(&k, &name); err != nil {
			return nil, err
		}
		out[k] = name
	}
	return out, rows.Err()
}
