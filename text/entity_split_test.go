package text

import (
	"bufio"
	"encoding/json"
	"os"
	"reflect"
	"strings"
	"testing"
)

// splitTexts are the facts of the labelled sets.
func splitTexts(t *testing.T) []string {
	t.Helper()
	var out []string
	for _, name := range []string{"testdata/entities.tsv", "testdata/poison.tsv"} {
		f, err := os.Open(name)
		if err != nil {
			t.Fatal(err)
		}
		sc := bufio.NewScanner(f)
		for sc.Scan() {
			cols := strings.Split(sc.Text(), "\t")
			if len(cols) >= 2 && !strings.HasPrefix(cols[0], "#") {
				out = append(out, strings.ReplaceAll(cols[1], `\n`, "\n"))
			}
		}
		f.Close()
	}
	f, err := os.Open("testdata/hygiene.jsonl")
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		var p struct{ New, Old string }
		if err := json.Unmarshal(sc.Bytes(), &p); err != nil {
			t.Fatal(err)
		}
		out = append(out, p.New, p.Old)
	}
	return out
}

func checkSplit(t *testing.T, s string) {
	t.Helper()
	ents, all := EntitiesExtract(s)
	if want := Entities(s); !reflect.DeepEqual(ents, want) && (len(ents) != 0 || len(want) != 0) {
		t.Fatalf("%q: entities %+v, Entities %+v", s, ents, want)
	}
	if want := Extract(s, nil); !reflect.DeepEqual(all, want) && (len(all) != 0 || len(want) != 0) {
		t.Fatalf("%q: all %+v, Extract %+v", s, all, want)
	}
}

// EntitiesExtract gives what Entities and Extract give apart.
func TestEntitiesExtract(t *testing.T) {
	texts := splitTexts(t)
	if len(texts) < 200 {
		t.Fatalf("%d texts", len(texts))
	}
	recurring := 0
	for _, s := range texts {
		checkSplit(t, s)
		ents, all := EntitiesExtract(s)
		recurring += len(all) - len(ents)
	}
	if recurring == 0 {
		t.Error("no text has recurring candidates: the split is not exercised")
	}
}

func FuzzEntitiesExtract(f *testing.F) {
	f.Add("Alice deploys nginx aka engine-x to prod-eu with `make deploy` see #42")
	f.Fuzz(func(t *testing.T, s string) { checkSplit(t, s) })
}
