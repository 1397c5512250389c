package text

import (
	"slices"
	"testing"
)

func TestContentTokens(t *testing.T) {
	tests := []struct {
		in   string
		want []string
	}{
		{"What does Alice prefer?", []string{"alice", "prefer"}},
		{"When did we deploy nginx", []string{"deploy", "nginx"}},
		{"Где мы развернули nginx?", []string{"развернули", "nginx"}},
		{"Что ещё она любит", []string{"любит"}},
		{"who is who", []string{"who", "is", "who"}}, // only stop words: kept whole
		{"", nil},
	}
	for _, tc := range tests {
		if got := ContentTokens(tc.in); !slices.Equal(got, tc.want) && !(len(got) == 0 && len(tc.want) == 0) {
			t.Errorf("ContentTokens(%q) = %q, want %q", tc.in, got, tc.want)
		}
	}
	if got := QueryText("What is the nginx port?"); got != "nginx port" {
		t.Errorf("QueryText = %q", got)
	}
}

func TestMorphPrefix(t *testing.T) {
	tests := []struct{ tok, want string }{
		{"развертывание", "разве"},
		{"развернули", "разве"},
		{"алексея", ""}, // stem "алекс" is too short: names match exactly
		{"deployment", ""},
		{"nginx", ""},
		{"да", ""},
	}
	for _, tc := range tests {
		if got := MorphPrefix(tc.tok); got != tc.want {
			t.Errorf("MorphPrefix(%q) = %q, want %q", tc.tok, got, tc.want)
		}
	}
	if got := MatchAny("развертывание nginx"); got != `("развертывание" OR "развертыван" OR "разве" *) OR "nginx"` {
		t.Errorf("MatchAny = %s", got)
	}
}
