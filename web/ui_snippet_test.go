package web

import (
	"html/template"
	"testing"

	"github.com/holomem/holomem"
)

func TestMarked(t *testing.T) {
	tests := []struct {
		name    string
		snippet string
		matches [][2]int
		want    template.HTML
	}{
		{"plain", "a <b> & c", nil, "a &lt;b&gt; &amp; c"},
		{"marks", "deploy <x> slots", [][2]int{{0, 6}, {11, 16}}, "<mark>deploy</mark> &lt;x&gt; <mark>slots</mark>"},
		{"markup inside a match is escaped", "<script>", [][2]int{{1, 7}}, "&lt;<mark>script</mark>&gt;"},
		{"out of range", "abc", [][2]int{{1, 9}}, "abc"},
		{"out of order", "abc def", [][2]int{{4, 7}, {0, 3}}, "abc def"},
		{"inside a character", "ёж", [][2]int{{1, 4}}, "ёж"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := marked(holomem.Hit{Fact: &holomem.Fact{}, Snippet: tt.snippet, Matches: tt.matches})
			if got != tt.want {
				t.Errorf("marked = %q, want %q", got, tt.want)
			}
		})
	}
}
