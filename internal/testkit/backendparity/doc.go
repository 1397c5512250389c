// Package backendparity holds only tests: it imports the same generated
// memory into the SQLite and the PostgreSQL store and checks that both
// derive the same facts, entities and links from it. Anything the stores
// compute from content (entities in order, the entity table with aliases
// and counts, content hashes, tags) must not depend on the backend, or a
// memory copied from one to the other would recall differently.
package backendparity
