-- 0010_browse: indexes for the browse listing (holomem.FactBrowser).
--
-- The browse page sorts a namespace's live facts by update time, event
-- time or trust and pages by (key, id). Without an index every page and
-- its count read the whole facts table (about 1 s a page at 100k facts
-- in BenchmarkBrowsePage); with these the page reads its 51 rows
-- and the count reads one index. They cover live facts only, as the page
-- does by default: a listing with superseded facts scans. The retrieval
-- count index is updated by every recall's touch (one entry per fact
-- returned), a small price beside the recall. facts_browse_labels lets a
-- count filtered by category, source or tag read one index instead of
-- every row (a tag is matched inside the tags text, so no index seeks it;
-- superseded_by, NULL throughout, makes the index cover the count).
-- What they cost SQLite: about a tenth of batch insert throughput (5,950
-- to 5,290 facts/s in BenchmarkCreateFacts_1000) and 140 bytes a fact
-- (1,673 to 1,811 in BenchmarkSize_10k).

CREATE INDEX facts_browse_updated ON facts(namespace, updated_at) WHERE superseded_by IS NULL;
CREATE INDEX facts_browse_created ON facts(namespace, created_at) WHERE superseded_by IS NULL;
CREATE INDEX facts_browse_trust ON facts(namespace, trust) WHERE superseded_by IS NULL;
CREATE INDEX facts_browse_retrievals ON facts(namespace, retrieval_count) WHERE superseded_by IS NULL;
CREATE INDEX facts_browse_labels ON facts(namespace, category, source, tags, superseded_by) WHERE superseded_by IS NULL;
