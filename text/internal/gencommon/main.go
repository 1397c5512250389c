// Command gencommon writes text/common_en.txt, the English words that
// are too common to be a name on their own, and text/common_names_en.txt,
// those of them that are also names, from a SCOWL word list (Debian
// package wamerican, size 50):
//
//	go run ./text/internal/gencommon /usr/share/dict/american-english text
//
// Each line of common_en.txt is the Snowball stem of a lower-case entry;
// each line of common_names_en.txt is a lower-case word that the list also
// spells capitalised (a name such as "Mark" or "Bill" that is also a
// common word). Both are in byte order. They are two files, not two
// sections of one, so the package embeds each as it is: splitting one at
// start scanned 200 KiB in every process.
package main

import (
	"bufio"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"

	"github.com/kljensen/snowball/english"
)

func main() {
	if len(os.Args) != 3 {
		fmt.Fprintln(os.Stderr, "usage: gencommon WORDLIST DIR")
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
			names = append(names, w)
		}
	}
	out := make([]string, 0, len(stems))
	for s := range stems {
		out = append(out, s)
	}
	sort.Strings(out)
	sort.Strings(names)
	for file, lines := range map[string][]string{"common_en.txt": out, "common_names_en.txt": names} {
		if err := writeLines(filepath.Join(os.Args[2], file), lines); err != nil {
			fmt.Fprintln(os.Stderr, err)
			os.Exit(1)
		}
	}
}

// writeLines writes lines to the file at path, one per line.
func writeLines(path string, lines []string) error {
	f, err := os.Create(path)
	if err != nil {
		return err
	}
	bw := bufio.NewWriter(f)
	for _, l := range lines {
		fmt.Fprintln(bw, l)
	}
	if err := bw.Flush(); err != nil {
		f.Close()
		return fmt.Errorf("write %s: %w", path, err)
	}
	return f.Close()
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
