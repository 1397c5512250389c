package bench

import (
	"github.com/spf13/cobra"

	"github.com/holomem/holomem/internal/bench/kwbench"
)

func (e *Env) keywordCmd() *cobra.Command {
	var o kwbench.Options
	var docsFile, queriesFile string
	var n, words, nq int
	cmd := &cobra.Command{
		Use:   "keyword",
		Short: "Recall without a model vs a plain FTS5 BM25 any-word top-10 query on the same data and driver: p50/p99, hits, ratio, recall's stages",
		Long: `Loads the documents (--docs FILE, one per line; default: --n generated Zipf
documents of ~--words words) into a holomem store and into a plain FTS5 table
on the same SQLite driver, then runs every query (--queries FILE; default: 100
generated two-word queries) through both, one after the other, --rounds times.
The baseline is the question recall's candidate generation asks: documents
holding any of the query's words (an OR of the quoted words), ranked by
BM25, top 10. Prints p50/p99 and hits per query of each, their ratio and
where recall spends its time. A third line runs the every-word query (AND)
for comparison only: it answers another question and, on Zipf text, finds
far fewer documents, so its latency flatters nobody.
--cpuprofile writes a CPU profile of an extra pass of recall alone
(go tool pprof -top holomem FILE).`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			gd, gq := kwbench.Generate(n, words, nq, 1)
			o.Docs, o.Queries = gd, gq
			var err error
			if docsFile != "" {
				if o.Docs, err = kwbench.ReadLines(docsFile); err != nil {
					return err
				}
			}
			if queriesFile != "" {
				if o.Queries, err = kwbench.ReadLines(queriesFile); err != nil {
					return err
				}
			}
			if len(o.Docs) == 0 || len(o.Queries) == 0 {
				return e.Usage("no documents or no queries")
			}
			rep, err := kwbench.Run(cmd.Context(), o)
			if err != nil {
				return err
			}
			rep.Print(e.Stdout)
			return nil
		},
	}
	cmd.Flags().StringVar(&docsFile, "docs", "", "documents, one per line (default: generated)")
	cmd.Flags().StringVar(&queriesFile, "queries", "", "queries, one per line (default: generated)")
	cmd.Flags().IntVar(&n, "n", 10_000, "generated documents")
	cmd.Flags().IntVar(&words, "words", 60, "mean words per generated document")
	cmd.Flags().IntVar(&nq, "n-queries", 100, "generated queries")
	cmd.Flags().IntVar(&o.Rounds, "rounds", 3, "times every query runs")
	cmd.Flags().StringVar(&o.CPUProfile, "cpuprofile", "", "write a CPU profile of recall to this file")
	return cmd
}
