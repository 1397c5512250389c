package backup

import (
	"context"
	"crypto/sha256"
	"database/sql"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/holomem/holomem"
	"github.com/holomem/holomem/retrieve"
	"github.com/holomem/holomem/sqlite"
)

// flipGroups names the tables whose pages the flip test damages: a fact's
// row, the full-text index, the edges.
var flipGroups = map[string]string{
	"facts": "fact", "edges": "edge",
	"facts_fts_data": "fts", "facts_fts_idx": "fts", "facts_fts_docsize": "fts", "facts_fts_config": "fts",
}

// tableDump hashes every row of the flipped tables, to tell a flip that
// changed a stored byte from one that landed in free space; an error means
// the damaged file no longer reads.
func tableDump(ctx context.Context, path string) (map[string][32]byte, error) {
	db, err := sql.Open("sqlite", "file:"+path+"?mode=ro&immutable=1")
	if err != nil {
		return nil, err
	}
	defer db.Close()
	out := map[string][32]byte{}
	for table := range flipGroups {
		rows, err := db.QueryContext(ctx, "SELECT * FROM "+table)
		if err != nil {
			return nil, err
		}
		cols, _ := rows.Columns()
		h := sha256.New()
		vals := make([]any, len(cols))
		ptrs := make([]any, len(cols))
		for i := range vals {
			ptrs[i] = &vals[i]
		}
		for rows.Next() {
			if err := rows.Scan(ptrs...); err != nil {
				rows.Close()
				return nil, err
			}
			fmt.Fprintf(h, "%#v\n", vals)
		}
		err = rows.Err()
		rows.Close()
		if err != nil {
			return nil, err
		}
		var sum [32]byte
		copy(sum[:], h.Sum(nil))
		out[table] = sum
	}
	return out, nil
}

// TestVerifyCatchesPageFlips writes random 8-byte runs into pages of the
// facts, full-text and edge tables of a real store file and counts how
// many of the flips that change a stored byte verify reports (plain and
// --deep). HOLOMEM_FLIP_TRIALS sets the number of flips (default 90).
func TestVerifyCatchesPageFlips(t *testing.T) {
	if testing.Short() {
		t.Skip("flips a store file many times")
	}
	if raceEnabled {
		t.Skip("a measurement, minutes under the race detector: .ci/run runs it without -race")
	}
	trials := 90
	if v, err := strconv.Atoi(os.Getenv("HOLOMEM_FLIP_TRIALS")); err == nil && v > 0 {
		trials = v
	}
	ctx := t.Context()
	dir := t.TempDir()
	clean := filepath.Join(dir, "clean.db")
	s, err := sqlite.Open(ctx, filepath.Join(dir, "live.db"))
	if err != nil {
		t.Fatal(err)
	}
	m, err := retrieve.New(s, retrieve.Options{})
	if err != nil {
		t.Fatal(err)
	}
	words := strings.Fields("Alice Bob Carol deploys nginx Ansible billing service prefers vim Kubernetes cluster Postgres backup nightly Moscow Berlin release train review")
	r := rand.New(rand.NewPCG(7, 7))
	var ids []int64
	for i := range 300 {
		var b strings.Builder
		for j := range 6 + r.IntN(20) {
			if j > 0 {
				b.WriteByte(' ')
			}
			b.WriteString(words[r.IntN(len(words))])
		}
		fmt.Fprintf(&b, " (note %d)", i)
		rem, err := m.Remember(ctx, &holomem.Fact{Content: b.String(), Category: "note", Tags: []string{"t" + strconv.Itoa(i%7)}, Source: "flip-test"})
		if err != nil {
			t.Fatal(err)
		}
		ids = append(ids, rem.Fact.ID)
	}
	for i := 1; i < len(ids); i++ {
		if _, err := s.CreateEdge(ctx, &holomem.Edge{From: ids[i-1], To: ids[i], Kind: holomem.EdgeCausal, Weight: 0.5}); err != nil {
			t.Fatal(err)
		}
	}
	if err := s.Backup(ctx, clean); err != nil {
		t.Fatal(err)
	}
	m.Close()
	s.Close()
	if rep := Verify(ctx, clean, true); !rep.OK {
		t.Fatalf("the clean file does not verify: %v", rep.Problems)
	}
	raw, err := os.ReadFile(clean)
	if err != nil {
		t.Fatal(err)
	}
	base, err := tableDump(ctx, clean)
	if err != nil {
		t.Fatal(err)
	}
	// The pages of each table (dbstat: b-tree and overflow pages).
	db, err := sql.Open("sqlite", "file:"+clean+"?mode=ro&immutable=1")
	if err != nil {
		t.Fatal(err)
	}
	var pages []int
	var group []string
	var pageSize int
	db.QueryRow("PRAGMA page_size").Scan(&pageSize)
	rows, err := db.Query("SELECT name, pageno FROM dbstat ORDER BY pageno")
	if err != nil {
		t.Fatal(err)
	}
	for rows.Next() {
		var name string
		var pg int
		rows.Scan(&name, &pg)
		if g, ok := flipGroups[name]; ok {
			pages = append(pages, pg)
			group = append(group, g)
		}
	}
	rows.Close()
	db.Close()
	type tally struct{ changed, caught, deep int }
	got := map[string]*tally{"fact": {}, "fts": {}, "edge": {}}
	flipped := filepath.Join(dir, "flipped.db")
	var missed []string
	byGroup := map[string][]int{}
	for i, g := range group {
		byGroup[g] = append(byGroup[g], i)
	}
	names := []string{"fact", "fts", "edge"}
	for trial := range trials {
		in := byGroup[names[trial%len(names)]] // each kind of page as often
		i := in[r.IntN(len(in))]
		b := append([]byte(nil), raw...)
		off := (pages[i]-1)*pageSize + r.IntN(pageSize-8)
		for k := range 8 {
			b[off+k] ^= byte(1 + r.IntN(255)) // every byte changes
		}
		if err := os.WriteFile(flipped, b, 0o600); err != nil {
			t.Fatal(err)
		}
		d, err := tableDump(ctx, flipped)
		if err == nil && sameDump(d, base) {
			continue // free space, or a byte nothing reads
		}
		g := got[group[i]]
		g.changed++
		if !Verify(ctx, flipped, false).OK {
			g.caught++
		}
		if !Verify(ctx, flipped, true).OK {
			g.deep++
		} else {
			var which []string
			for tb, sum := range d {
				if sum != base[tb] {
					which = append(which, tb)
				}
			}
			missed = append(missed, fmt.Sprintf("%s page %d offset %d (changed %v, read error %v)", group[i], pages[i], off%pageSize, which, err))
		}
	}
	var changed, caught, deep int
	for _, name := range names {
		g := got[name]
		changed, caught, deep = changed+g.changed, caught+g.caught, deep+g.deep
		t.Logf("%-4s pages: %3d flips changed a stored byte; verify caught %3d, verify --deep %3d", name, g.changed, g.caught, g.deep)
	}
	if changed == 0 {
		t.Fatal("no flip changed a stored byte")
	}
	t.Logf("catch rate over %d effective flips (of %d): verify %.1f%%, verify --deep %.1f%%", changed, trials,
		100*float64(caught)/float64(changed), 100*float64(deep)/float64(changed))
	if len(missed) > 0 {
		t.Logf("missed by --deep: %s", strings.Join(missed[:min(len(missed), 10)], "; "))
	}
	if float64(deep) < 0.95*float64(changed) {
		t.Errorf("verify --deep caught %d of %d flips that changed a stored byte, want >= 95%%", deep, changed)
	}
}

func sameDump(a, b map[string][32]byte) bool {
	for k, v := range b {
		if a[k] != v {
			return false
		}
	}
	return true
}
