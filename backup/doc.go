// Package backup writes, verifies and restores SQLite holomem databases:
// an online, consistent copy (VACUUM INTO) that is verified before it is
// trusted; a read-only check of any database or backup file that reports
// what is wrong instead of repairing it (a hot journal, a cut write-ahead
// log, damaged pages, content hashes, vectors, graphs); and a restore that
// verifies the backup, refuses to drop newer changes and keeps the old
// file aside.
//
// It is policy, so it lives in the library: the command line, the server's
// periodic backups and programs embedding holomem apply the same rules.
// PostgreSQL has its own tools (pg_dump, or `holomem copy`).
package backup
