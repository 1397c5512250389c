package main

import (
	"fmt"
	"io"
	"sort"
	"strings"

	"github.com/holomem/holomem"
)

// oneLine shortens s to n runes on one line.
func oneLine(s string, n int) string {
	s = strings.Join(strings.Fields(s), " ")
	r := []rune(s)
	if len(r) > n {
		return string(r[:n-1]) + "…"
	}
	return s
}

func joinIDs(ids []int64, sep string) string {
	s := make([]string, len(ids))
	for i, id := range ids {
		s[i] = fmt.Sprintf("#%d", id)
	}
	return strings.Join(s, sep)
}

func printHits(w io.Writer, hits []holomem.Hit) {
	if len(hits) == 0 {
		fmt.Fprintln(w, "no facts found")
	}
	for _, h := range hits {
		fmt.Fprintf(w, "#%-6d %.3f  %s\n", h.Fact.ID, h.Score, oneLine(h.Fact.Content, 110))
	}
}

func printCounts(w io.Writer, title string, m map[string]int) {
	if len(m) == 0 {
		return
	}
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	fmt.Fprintf(w, "%s:\n", title)
	for _, k := range keys {
		fmt.Fprintf(w, "  %-40s %d\n", k, m[k])
	}
}

func humanBytes(n int64) string {
	switch {
	case n >= 1<<30:
		return fmt.Sprintf("%.1f GiB", float64(n)/(1<<30))
	case n >= 1<<20:
		return fmt.Sprintf("%.1f MiB", float64(n)/(1<<20))
	case n >= 1<<10:
		return fmt.Sprintf("%.1f KiB", float64(n)/(1<<10))
	}
	return fmt.Sprintf("%d B", n)
}

// indent prefixes every line of s with pre.
func indent(s, pre string) string {
	return pre + strings.ReplaceAll(strings.TrimRight(s, "\n"), "\n", "\n"+pre)
}
