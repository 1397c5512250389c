-- 0006_browse: indexes for the browse listing (holomem.FactBrowser).
--
-- The browse page sorts a namespace's live facts by update time, event
-- time or trust and pages by (key, id). Without an index every page and
-- its count read the whole facts table (about 1 s at 100k facts, the HRR
-- vector makes each row a page); with these the page reads its 51 rows
-- and the count reads one index. They cover live facts only, as the page
-- does by default: a listing with superseded facts scans. Retrieval
-- counts change on every recall, so that order has no index (it scans).

CREATE INDEX facts_browse_updated ON facts(namespace, updated_at) WHERE superseded_by IS NULL;
CREATE INDEX facts_browse_created ON facts(namespace, created_at) WHERE superseded_by IS NULL;
CREATE INDEX facts_browse_trust ON facts(namespace, trust) WHERE superseded_by IS NULL;
