package agentconf

import (
	"fmt"
	"strings"
)

// Diff returns a unified diff of the edit (one hunk around everything
// between the first and the last changed line, with up to three lines of
// context), or "" when it changes nothing. It is for a person reading
// --dry-run, not for patch(1), though patch accepts it.
func Diff(e Edit) string {
	if !e.Changed() {
		return ""
	}
	oldL, newL := splitLines(string(e.Old)), splitLines(string(e.New))
	pre := 0
	for pre < len(oldL) && pre < len(newL) && oldL[pre] == newL[pre] {
		pre++
	}
	suf := 0
	for suf < len(oldL)-pre && suf < len(newL)-pre && oldL[len(oldL)-1-suf] == newL[len(newL)-1-suf] {
		suf++
	}
	const context = 3
	from := max(0, pre-context)
	oldTo, newTo := len(oldL)-suf+min(suf, context), len(newL)-suf+min(suf, context)
	var b strings.Builder
	name := strings.TrimPrefix(e.Path, "/")
	oldName := "a/" + name
	if e.Old == nil {
		oldName = "/dev/null"
	}
	fmt.Fprintf(&b, "--- %s\n+++ b/%s\n", oldName, name)
	fmt.Fprintf(&b, "@@ -%s +%s @@\n", hunkRange(from, oldTo-from), hunkRange(from, newTo-from))
	for _, l := range oldL[from:pre] {
		b.WriteString(" " + l + "\n")
	}
	for _, l := range oldL[pre : len(oldL)-suf] {
		b.WriteString("-" + l + "\n")
	}
	for _, l := range newL[pre : len(newL)-suf] {
		b.WriteString("+" + l + "\n")
	}
	for _, l := range oldL[len(oldL)-suf : oldTo] {
		b.WriteString(" " + l + "\n")
	}
	return b.String()
}

// hunkRange is a unified diff range: start (1-based) and count.
func hunkRange(start, n int) string {
	if n == 0 {
		return fmt.Sprintf("%d,0", start)
	}
	return fmt.Sprintf("%d,%d", start+1, n)
}

func splitLines(s string) []string {
	if s == "" {
		return nil
	}
	return strings.Split(strings.TrimSuffix(s, "\n"), "\n")
}
