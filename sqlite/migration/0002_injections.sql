-- 0002_injections: the prompt hook's log, so doctor can show how often
-- memory was injected, empty, failed or missed its deadline.

CREATE TABLE injections (
	id        INTEGER PRIMARY KEY,
	at        INTEGER NOT NULL,
	namespace TEXT    NOT NULL,
	outcome   TEXT    NOT NULL,
	hits      INTEGER NOT NULL,
	took_ns   INTEGER NOT NULL,
	detail    TEXT    NOT NULL DEFAULT ''
);
CREATE INDEX injections_at ON injections(at);
