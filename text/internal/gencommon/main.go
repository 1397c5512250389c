// Command gencommon writes text/common_en.txt, the English words that
// are too common to be a name on their own, from a SCOWL word list (Debian
// package wamerican, size 50):
//
//	go run ./text/internal/gencommon /usr/share/dict/american-english > text/common_en.txt
//
// Each line is the Snowball stem of a lower-case entry; a line starting
// with '=' is a lower-case word that the list also spells capitalised (a
// name such as "Mark" or "Bill" that is also a common word).
package main

import (
	"bufio"
	"fmt"
	"os"
	"sort"
	"strings"

	"github.com/kljensen/snowball/english"
)

func main() {
	if len(os.Args) != 2 {
		fmt.Fprintln(os.Stderr, "usage: gencommon WORDLIST")
		os.Exit(2)
	}
	f, err := os.Open(os.Args[1])
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	defer f.Close()
	lower := map[string]bool{}
	capital := map[string]bool{}
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		w := strings.TrimSpace(sc.Text())
		if w == "" || !ascii(w) {
			continue
		}
		switch {
		case strings.ToLower(w) == w:
			lower[w] = true
		case strings.ToLower(w[:1])+w[1:] == strings.ToLower(w):
			capital[strings.ToLower(w)] = true
		}
	}
	if err := sc.Err(); err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	stems := map[string]bool{}
	var names []string
	for w := range lower {
		stems[english.Stem(w, true)] = true
		if capital[w] {
			names = append(names, "="+w)
		}
	}
	out := make([]string, 0, len(stems))
	for s := range stems {
		out = append(out, s)
	}
	sort.Strings(out)
	sort.Strings(names)
	bw := bufio.NewWriter(os.Stdout)
	for _, l := range append(out, names...) {
		fmt.Fprintln(bw, l)
	}
	if err := bw.Flush(); err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
}

// ascii reports whether w is letters a-z/A-Z only (no apostrophes).
func ascii(w string) bool {
	for i := 0; i < len(w); i++ {
		c := w[i]
		if !('a' <= c && c <= 'z' || 'A' <= c && c <= 'Z') {
			return false
		}
	}
	return true
}
