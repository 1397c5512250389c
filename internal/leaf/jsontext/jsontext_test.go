package jsontext

import (
	"encoding/json"
	"strings"
	"testing"
)

func TestLoneSurrogate(t *testing.T) {
	tests := []struct {
		in   string
		want int
	}{
		{`{"content":"plain"}`, -1},
		{`{"content":"\ud83d\ude00 pair"}`, -1},
		{`{"content":"\uD83D\uDE00"}`, -1},
		{`{"content":"\ud800"}`, 12},
		{`{"content":"a \ud800 b"}`, 14},
		{`{"content":"\udc00"}`, 12},
		{`{"content":"\ud800\u0041"}`, 12},
		{`{"content":"\\ud800"}`, -1}, // an escaped backslash, then text
		{`{"content":"é \u00e9"}`, -1},
		{`{"a":"\ud83d\ude00","b":"\ud800"}`, 25},
		{`{"content":"\ud800`, 12},
		{`"\`, -1},
	}
	for _, tc := range tests {
		got, ok := LoneSurrogate([]byte(tc.in))
		if got != tc.want || ok != (tc.want >= 0) {
			t.Errorf("LoneSurrogate(%s) = %d, %v; want %d", tc.in, got, ok, tc.want)
		}
	}
}

// FuzzLoneSurrogate: whenever no lone surrogate is found, encoding/json
// decodes the strings without putting U+FFFD where the text had none.
func FuzzLoneSurrogate(f *testing.F) {
	for _, s := range []string{`"\ud800"`, `"\ud83d\ude00"`, `"\\ud800"`, `"a\u0041"`} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		if _, lone := LoneSurrogate([]byte(s)); lone {
			return
		}
		var v string
		if json.Unmarshal([]byte(s), &v) != nil {
			return
		}
		if strings.ContainsRune(v, '\uFFFD') && !strings.ContainsRune(s, '\uFFFD') && !strings.Contains(strings.ToLower(s), `\ufffd`) {
			t.Errorf("%q decodes to %q with U+FFFD, but no lone surrogate was found", s, v)
		}
	})
}
