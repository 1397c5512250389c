package text

import (
	"strings"
	"testing"
)

// TestCommonList_sorted: the lookups binary-search the embedded list, so
// each section must be in byte order with no empty or duplicate lines; a
// regenerated list that is not would make words silently rare.
func TestCommonList_sorted(t *testing.T) {
	for name, sec := range map[string]string{"stems": commonStems, "names": commonNames} {
		lines := strings.Split(strings.TrimSuffix(sec, "\n"), "\n")
		if len(lines) < 1000 {
			t.Fatalf("%s: only %d lines", name, len(lines))
		}
		for i, l := range lines {
			if l == "" || strings.ContainsRune(l, '=') {
				t.Fatalf("%s line %d: %q", name, i, l)
			}
			if i > 0 && lines[i-1] >= l {
				t.Fatalf("%s: %q before %q: not in byte order", name, lines[i-1], l)
			}
		}
	}
}

// TestInSorted_sameAsSet: the binary search answers as a set of the same
// lines would, for every line, for strings just before and after each
// line, and at the ends.
func TestInSorted_sameAsSet(t *testing.T) {
	for name, sec := range map[string]string{"stems": commonStems, "names": commonNames} {
		set := map[string]bool{}
		lines := strings.Split(strings.TrimSuffix(sec, "\n"), "\n")
		for _, l := range lines {
			set[l] = true
		}
		probes := []string{"", "\x00", "zzzzzzzz", "~", "a", "aa"}
		for _, l := range lines {
			probes = append(probes, l, l+"a", l[:len(l)-1], l+"\x00", strings.ToUpper(l))
		}
		for _, p := range probes {
			if got := inSorted(sec, p); got != set[p] {
				t.Fatalf("%s: inSorted(%q) = %v, the set says %v", name, p, got, set[p])
			}
		}
	}
	for _, tc := range []struct {
		list, w string
		want    bool
	}{
		{"", "a", false},
		{"a\n", "a", true},
		{"a", "a", true},
		{"a\nb\nc\n", "b", true},
		{"a\nb\nc\n", "c", true},
		{"a\nb\nc\n", "bb", false},
		{"a\nb\nc", "c", true},
	} {
		if got := inSorted(tc.list, tc.w); got != tc.want {
			t.Errorf("inSorted(%q, %q) = %v, want %v", tc.list, tc.w, got, tc.want)
		}
	}
}

func BenchmarkIsCommonWord(b *testing.B) {
	words := strings.Fields("the deployment of kubernetes failed because nginx timeouts grew with alice and bob on payments")
	for i := 0; b.Loop(); i++ {
		isCommonWord(words[i%len(words)])
	}
}

// TestInCommon_acrossTheSwitch: lookups answer the same before and after
// they switch from the binary search to the maps.
func TestInCommon_acrossTheSwitch(t *testing.T) {
	check := func(when string) {
		for _, sec := range []*string{&commonStems, &commonNames} {
			lines := strings.Split(strings.TrimSuffix(*sec, "\n"), "\n")
			for i, l := range lines {
				if i%7 != 0 {
					continue
				}
				if !inCommon(sec, l) {
					t.Fatalf("%s: %q not found", when, l)
				}
				if inCommon(sec, l+"qx") {
					t.Fatalf("%s: %q found", when, l+"qx")
				}
			}
		}
	}
	check("first lookups")
	for range commonMapAfter {
		inCommon(&commonStems, "the")
	}
	if commonMaps.Load() == nil {
		t.Fatal("no switch to the maps after commonMapAfter lookups")
	}
	check("after the switch")
}

// TestStem_cacheGrows: the stem cache starts small and grows after
// stemGrowAfter misses; stems are the uncached ones before, across and
// after the switch, and the cache holds the big table at the end.
func TestStem_cacheGrows(t *testing.T) {
	words := make([]string, 0, 3*stemGrowAfter)
	for i := range cap(words) {
		// Distinct words of letters only (digits are not stemmed).
		w := []byte("running")
		for n := i; ; n /= 26 {
			w = append(w, byte('a'+n%26))
			if n < 26 {
				break
			}
		}
		words = append(words, string(w)+"ing")
	}
	for pass := range 2 {
		for _, w := range words {
			if got, want := Stem(w), stem(scriptLatin, w); got != want {
				t.Fatalf("pass %d: Stem(%q) = %q, want %q", pass, w, got, want)
			}
		}
	}
	if n := len(*stemCache.Load()); n != stemCacheSize {
		t.Errorf("stem cache has %d slots after %d misses, want %d", n, len(words), stemCacheSize)
	}
}
