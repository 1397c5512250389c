package sqlstore

import (
	"database/sql"
	"strconv"
	"strings"
	"sync"
)

// Row is one row of a query; Scan reports sql.ErrNoRows (ErrNoRows) when
// there is none, whatever the driver says.
type Row interface {
	Scan(dest ...any) error
}

// ErrNoRows is what Row.Scan returns when the query found no row.
var ErrNoRows = sql.ErrNoRows

// ClosingRows are Rows the caller closes.
type ClosingRows interface {
	Rows
	Close() error
}

// Tx is a transaction (or a connection pool for statements that need no
// common snapshot) with its context bound. The shared code writes its
// statements with ? placeholders; a driver whose placeholders differ
// rebinds them (Rebind).
type Tx interface {
	Query(q string, args ...any) (ClosingRows, error)
	QueryRow(q string, args ...any) Row
	// Exec runs q and returns how many rows it changed.
	Exec(q string, args ...any) (int64, error)
}

// Dialect holds the bits of SQL the two stores spell differently. The
// shared statements are built from them once (NewDialect), not per call.
type Dialect struct {
	// InIDs returns the condition that col is one of a list of ids bound
	// as one ? parameter (the value IDs makes of them).
	InIDs func(col string) string
	// IDs makes the one parameter of a list of ids.
	IDs func(ids []int64) any
	// NullBytes is a NULL of the byte column type.
	NullBytes string
	// DistinctFrom is the operator for "not equal, NULL being a value".
	DistinctFrom string
	// Substr is the function giving the 1-based position of a substring
	// (instr on SQLite, strpos on PostgreSQL).
	Substr string
	// NoLimit is the LIMIT value that means none.
	NoLimit any
	// Collate is appended to a name column that must sort by code point.
	Collate string
	// InsertOrIgnore and OnConflictIgnore make an INSERT skip the rows
	// a unique key already holds (InsertIgnore).
	InsertOrIgnore, OnConflictIgnore string
	// QSchemaVersion reads the schema's version; QNamespaces lists the
	// namespaces that hold facts, sorted.
	QSchemaVersion, QNamespaces string
	// KeyShare is appended to a read of a fact an edge will reference
	// (" FOR KEY SHARE" where a lock, as the foreign key takes, keeps a
	// concurrent delete out).
	KeyShare string
	// Lock is appended to a read of a row the transaction then writes
	// (" FOR UPDATE" where rows are locked so).
	Lock string
	// QMarkRetrieved adds one to the retrieval count of a list of facts
	// (IDs).
	QMarkRetrieved string
	// InOrder is put before a column whose index must not be used where
	// a scan in id order would then need a sort ("+" on SQLite).
	InOrder string
	// RawBytes says the driver lends its buffer for a sql.RawBytes
	// (database/sql), saving a copy per row of a blob scan.
	RawBytes bool

	qEntitiesOfFacts, qAliasesOf string
}

// NewDialect returns d with its shared statements built.
func NewDialect(d Dialect) *Dialect {
	d.qEntitiesOfFacts = `SELECT fe.fact_id, e.name FROM fact_entities fe
	JOIN entities e ON e.id = fe.entity_id
	WHERE ` + d.InIDs("fe.fact_id") + `
	ORDER BY fe.fact_id, fe.pos, e.id`
	d.qAliasesOf = `SELECT entity_id, alias FROM entity_aliases
		WHERE ` + d.InIDs("entity_id") + ` ORDER BY entity_id, alias_key`
	return &d
}

// QEntitiesOfFacts lists (fact id, entity name) of a list of facts, each
// fact's names in order of appearance.
func (d *Dialect) QEntitiesOfFacts() string { return d.qEntitiesOfFacts }

var rebound sync.Map // string -> string

// Rebind returns q with its ? placeholders numbered $1, $2, ... as
// PostgreSQL wants them; the answer is kept, so a statement is rewritten
// once per process. The shared statements hold no ? of their own.
func Rebind(q string) string {
	if v, ok := rebound.Load(q); ok {
		return v.(string)
	}
	var b strings.Builder
	n := 0
	for i := 0; i < len(q); i++ {
		if q[i] == '?' {
			n++
			b.WriteByte('$')
			b.WriteString(strconv.Itoa(n))
			continue
		}
		b.WriteByte(q[i])
	}
	out := b.String()
	rebound.Store(q, out)
	return out
}
