package main

import (
	"encoding/json"
	"fmt"
	"io"
	"strings"

	"github.com/spf13/cobra"

	"github.com/holomem/holomem"
)

func (a *app) recallCmd() *cobra.Command {
	var q holomem.Query
	var minTrust float64
	var explain, full bool
	var budget int
	cmd := &cobra.Command{
		Use: "recall QUERY...", Aliases: []string{"search"}, Short: "Find facts by keyword and meaning", GroupID: "search",
		Long: `Find facts by keyword and meaning. Each hit shows its snippet: the part of
the fact (at most 320 characters) where the query's words are densest, taken
from its best passage when the fact is long; --full prints whole facts.

--budget N bounds the whole output to about N tokens (characters / 4, the
estimate every door uses): hits past it are left out, and a note says how
many and the --offset that shows them.`,
		Args: cobra.MinimumNArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			if err := holomem.ValidateBudget(budget); err != nil {
				return err
			}
			a.oneConnection = true
			m, err := a.memory(cmd.Context())
			if err != nil {
				return err
			}
			q.Text, q.Namespace = strings.Join(args, " "), a.ns()
			if cmd.Flags().Changed("min-trust") {
				q.MinTrust = &minTrust
			}
			res, err := m.Recall(cmd.Context(), q)
			if err != nil {
				return err
			}
			for _, h := range res.Hits {
				h.Fact.Embedding = nil
			}
			if !full {
				res = res.SnippetsOnly()
			}
			if budget > 0 {
				holomem.FitResult(res, budget, q.Offset, func(r *holomem.Result) int {
					var b strings.Builder
					if a.jsonOut {
						enc := json.NewEncoder(&b)
						enc.SetIndent("", "  ")
						_ = enc.Encode(r)
					} else {
						printResult(&b, r, explain, full)
					}
					return holomem.EstimateTokens(b.String())
				})
			}
			return a.out(res, func(w io.Writer) { printResult(w, res, explain, full) })
		},
	}
	fl := cmd.Flags()
	fl.IntVarP(&q.Limit, "limit", "k", holomem.DefaultLimit, "number of hits")
	fl.IntVar(&q.Offset, "offset", 0, "skip this many hits of the ranking (paging)")
	fl.IntVar(&budget, "budget", 0, "bound the output to about this many tokens (characters/4); 0: no bound")
	fl.BoolVar(&full, "full", false, "print whole facts instead of snippets")
	fl.StringVarP(&q.Category, "category", "c", "", "only this category")
	fl.Float64Var(&minTrust, "min-trust", holomem.DefaultMinTrust, "drop facts below this trust")
	fl.BoolVar(&q.IncludeSuperseded, "include-superseded", false, "also return superseded facts")
	fl.BoolVar(&q.PPR, "ppr", false, "add the Personalized PageRank channel (lifts hub notes for broad queries)")
	fl.BoolVar(&q.FollowCausal, "causal", false, "follow causal edges from hits (issue -> fixing PR)")
	fl.BoolVar(&q.NoTouch, "no-touch", false, "do not count this as a retrieval")
	fl.BoolVar(&explain, "explain", false, "show per-channel scores")
	return cmd
}

func printResult(w io.Writer, res *holomem.Result, explain, full bool) {
	for _, n := range res.Notes {
		fmt.Fprintf(w, "note: %s\n", n)
	}
	if len(res.Hits) == 0 {
		fmt.Fprintln(w, "no facts found")
		return
	}
	for _, h := range res.Hits {
		switch {
		case full:
			fmt.Fprintf(w, "#%-6d %.3f\n%s\n", h.Fact.ID, h.Score, indent(h.Fact.Content, "        "))
		case h.Snippet != "":
			fmt.Fprintf(w, "#%-6d %.3f  %s\n", h.Fact.ID, h.Score, h.Snippet)
		default:
			fmt.Fprintf(w, "#%-6d %.3f  %s\n", h.Fact.ID, h.Score, oneLine(h.Fact.Content, 110))
		}
		if p := h.Passage; p != nil && !full {
			fmt.Fprintf(w, "        passage %d (bytes %d-%d); --full or `holomem get %d` for all of it\n", p.Index+1, p.Start, p.End, h.Fact.ID)
		}
		if len(h.Via) > 0 {
			fmt.Fprintf(w, "        via %s\n", joinIDs(h.Via, " -> "))
		}
		if h.Stale != "" {
			fmt.Fprintf(w, "        possibly stale: %s\n", h.Stale)
		}
		if explain {
			fmt.Fprintf(w, "        %s", h.Scores.Explain())
			fmt.Fprintf(w, "  | relevance %.3f x trust %.2f x decay %.3f\n", h.Relevance, h.Fact.Trust, h.Decay)
		}
	}
	if explain {
		ch := make([]string, len(res.Channels))
		for i, c := range res.Channels {
			ch[i] = string(c)
		}
		fmt.Fprintf(w, "channels: %s (weights %s)\n", strings.Join(ch, ", "), res.Weights.Explain(true))
	}
}
