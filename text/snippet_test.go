package text

import (
	"slices"
	"strings"
	"testing"
	"unicode/utf8"
)

func TestMakeSnippet(t *testing.T) {
	filler := strings.Repeat("lorem ipsum dolor sit amet consectetur ", 40) // ~1600 runes
	tests := []struct {
		name, content, query string
		want                 string   // substring the snippet must hold
		marks                []string // the matched words, in order
		prefix, suffix       bool     // ellipses
		passage              int      // -1: no passage
	}{
		{"short whole", "The deploy uses blue-green slots.", "deploy slots", "The deploy uses blue-green slots.", []string{"deploy", "slots"}, false, false, -1},
		{"stems match", "We were deploying the services nightly.", "deploy service", "deploying the services", []string{"deploying", "services"}, false, false, -1},
		{"no match starts at start", "Alpha beta gamma.", "zeta", "Alpha beta gamma.", nil, false, false, -1},
		{"whitespace collapsed", "one\n\n  two\tthree", "two", "one two three", []string{"two"}, false, false, -1},
		{"long middle", filler + " the config file lives in ripgreprc since version 0.10 " + filler, "config file ripgreprc",
			"config file lives in ripgreprc", []string{"config", "file", "ripgreprc"}, true, true, 1},
		{"densest window wins", "config " + filler + " config file ripgreprc together " + filler, "config file ripgreprc",
			"config file ripgreprc together", []string{"config", "file", "ripgreprc"}, true, true, 1},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			sn := MakeSnippet(tt.content, QueryStems(tt.query))
			if !strings.Contains(sn.Text, tt.want) {
				t.Errorf("snippet %q does not hold %q", sn.Text, tt.want)
			}
			if n := utf8.RuneCountInString(sn.Text); n > SnippetRunes {
				t.Errorf("snippet is %d runes", n)
			}
			var got []string
			for _, m := range sn.Matches {
				got = append(got, sn.Text[m[0]:m[1]])
			}
			if !slices.Equal(got, tt.marks) {
				t.Errorf("marks %q, want %q", got, tt.marks)
			}
			if p := strings.HasPrefix(sn.Text, Ellipsis); p != tt.prefix {
				t.Errorf("prefix ellipsis %v in %q", p, sn.Text)
			}
			if s := strings.HasSuffix(sn.Text, Ellipsis); s != tt.suffix {
				t.Errorf("suffix ellipsis %v in %q", s, sn.Text)
			}
			switch {
			case tt.passage < 0 && sn.Passage != nil:
				t.Errorf("passage %+v for a short text", sn.Passage)
			case tt.passage >= 0 && (sn.Passage == nil || sn.Passage.Index != tt.passage):
				t.Errorf("passage %+v, want index %d", sn.Passage, tt.passage)
			}
		})
	}
}

func TestPassagesCoverText(t *testing.T) {
	s := strings.Repeat("A sentence of words here. ", 300) + strings.Repeat("x", 3000)
	ps := Passages(s)
	at := 0
	for i, p := range ps {
		if p.Index != i || p.Start != at || p.End <= p.Start {
			t.Fatalf("passage %d is %+v after %d", i, p, at)
		}
		if n := utf8.RuneCountInString(s[p.Start:p.End]); n > PassageRunes {
			t.Fatalf("passage %d is %d runes", i, n)
		}
		at = p.End
	}
	if at != len(s) {
		t.Fatalf("passages end at %d of %d", at, len(s))
	}
}

func FuzzMakeSnippet(f *testing.F) {
	f.Add("The deploy uses blue-green slots.", "deploy")
	f.Add(strings.Repeat("word ", 400)+"needle", "needle")
	f.Add("ёлка и ёж\n\nпраздник", "ёж праздник")
	f.Add(strings.Repeat("x", 2000), "x")
	f.Fuzz(func(t *testing.T, s, q string) {
		if !utf8.ValidString(s) {
			return
		}
		stems := QueryStems(q)
		sn := MakeSnippet(s, stems)
		if n := utf8.RuneCountInString(sn.Text); n > SnippetRunes {
			t.Fatalf("snippet is %d runes", n)
		}
		if !utf8.ValidString(sn.Text) {
			t.Fatalf("snippet %q is not UTF-8", sn.Text)
		}
		last := 0
		for _, m := range sn.Matches {
			if m[0] < last || m[1] <= m[0] || m[1] > len(sn.Text) {
				t.Fatalf("match %v out of order or range in %q", m, sn.Text)
			}
			if !slices.Contains(stems, Stem(Tokens(sn.Text[m[0]:m[1]])[0])) {
				t.Fatalf("match %q is not a query stem", sn.Text[m[0]:m[1]])
			}
			last = m[1]
		}
		if p := sn.Passage; p != nil && (p.Start < 0 || p.End > len(s) || p.Start >= p.End) {
			t.Fatalf("passage %+v outside the text of %d bytes", p, len(s))
		}
	})
}
