package sqlstore

import "testing"

func TestFoldDiacritics(t *testing.T) {
	for _, tc := range []struct{ in, want string }{
		{"nginx", "nginx"},
		{"café", "cafe"},
		{"naïve", "naive"},
		{"йод", "йод"},           // Cyrillic keeps its marks
		{"и\u0306од", "йод"},     // a decomposed й comes back composed
		{"ελληνικά", "ελληνικά"}, // Greek keeps them too
		{"日本語", "日本語"},
		{"zürich-город", "zurich-город"},
		{"\u0958", "\u0915\u093c"}, // not NFC: normalised as before
	} {
		if got := FoldDiacritics(tc.in); got != tc.want {
			t.Errorf("FoldDiacritics(%q) = %q, want %q", tc.in, got, tc.want)
		}
		if got := stripMarks(tc.in); got != tc.want {
			t.Errorf("stripMarks(%q) = %q, want %q", tc.in, got, tc.want)
		}
	}
}

// FuzzFoldDiacritics: the fast paths answer what stripMarks answers.
func FuzzFoldDiacritics(f *testing.F) {
	for _, s := range []string{"nginx", "café", "йод", "и\u0306од", "\u0958", "Ω\u2126", "ﬁ", "e\u0301\u0301"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		if got, want := FoldDiacritics(s), stripMarks(s); got != want {
			t.Errorf("FoldDiacritics(%q) = %q, stripMarks %q", s, got, want)
		}
	})
}
