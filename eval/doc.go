// Package eval measures retrieval quality: it loads a labelled data set
// into a [Memory] through the same path recall uses, asks every query, and
// reports recall@k, hit@k, MRR and nDCG@k per category and overall, with
// latency percentiles, next to a plain Okapi BM25 baseline computed in the
// same run over the same facts (so every figure is also a ratio).
//
// # The JSONL format
//
// One JSON object per line; blank lines and lines starting with '#' are
// skipped. A line is a fact or a query, told apart by "kind":
//
//	{"kind":"fact","key":"D1:3","text":"Caroline: I went to a support group","time":"2023-05-08T13:56:00Z","namespace":"conv-26","category":"chat"}
//	{"kind":"query","id":"q1","text":"When did Caroline go to the support group?","gold":["D1:3"],"category":"temporal","namespace":"conv-26"}
//
// Facts: key (required, unique within the namespace) is the external key
// queries name as gold; text (required) is the content; time (RFC 3339,
// optional) is when it happened, used as the fact's timestamp by dated runs;
// namespace (optional, default "default") scopes facts and queries alike;
// category (optional) is the fact's category. Queries: text and gold
// (at least one key of a fact in the query's namespace) are required; id
// and category (the report groups by it; "" is "uncategorised") are
// optional. Errors name the line.
//
// # BEIR
//
// [ReadBEIR] reads the BEIR layout (corpus.jsonl, queries.jsonl,
// qrels/test.tsv): every document becomes a fact of category "doc" whose
// first line is its title, and every query with a judgement of score > 0
// is asked. Such runs compare nDCG@10 (and report recall@100 and MRR@10)
// against two in-process baselines: [LuceneBM25], which replicates the
// BM25 behind BEIR's published figures, and the classic [ClassicBM25].
//
// # Metrics
//
// For a query with gold set G and ranked result list R: recall@k =
// |G ∩ R[:k]| / |G|; hit@k = 1 when any gold key is in R[:k]; MRR = 1 / rank
// of the first gold key within the largest k or [Config.MRRK] (0 when
// none); nDCG@k uses
// binary gains, DCG = Σ 1/log2(rank+1) over gold hits in R[:k], divided by
// the DCG of a perfect list. Every figure is the mean over queries.
package eval
