package text

import (
	"bufio"
	"encoding/json"
	"os"
	"slices"
	"testing"
)

type relPair struct {
	New   string   `json:"new"`
	Old   string   `json:"old"`
	Label Relation `json:"label"`
	Lang  string   `json:"lang"`
}

func loadRelPairs(t *testing.T, name string) []relPair {
	t.Helper()
	f, err := os.Open(name)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var out []relPair
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		if len(sc.Bytes()) == 0 {
			continue
		}
		var p relPair
		if err := json.Unmarshal(sc.Bytes(), &p); err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		out = append(out, p)
	}
	if err := sc.Err(); err != nil {
		t.Fatal(err)
	}
	return out
}

var relClasses = []Relation{RelNearDuplicate, RelContradiction, RelRefinement, RelUnrelated}

// relScore is a labelled set's confusion: per-class true positives, false
// positives and false negatives.
type relScore struct {
	tp, fp, fn map[Relation]int
	correct, n int
}

func (s *relScore) add(got, want Relation) {
	if s.tp == nil {
		s.tp, s.fp, s.fn = map[Relation]int{}, map[Relation]int{}, map[Relation]int{}
	}
	s.n++
	if got == want {
		s.tp[got]++
		s.correct++
		return
	}
	s.fp[got]++
	s.fn[want]++
}

func (s *relScore) precision(c Relation) float64 {
	return float64(s.tp[c]) / float64(max(1, s.tp[c]+s.fp[c]))
}

func (s *relScore) recall(c Relation) float64 {
	return float64(s.tp[c]) / float64(max(1, s.tp[c]+s.fn[c]))
}

func (s *relScore) accuracy() float64 { return float64(s.correct) / float64(max(1, s.n)) }

// check logs the per-class figures and fails when a class's precision
// or recall, or the accuracy, falls below floor (the measured figures
// less a margin).
func (s *relScore) check(t *testing.T, set string, floor map[Relation][2]float64, accFloor float64) {
	t.Helper()
	for _, c := range relClasses {
		t.Logf("FIGURE %s %-15s precision %.2f recall %.2f (%d/%d)", set, c, s.precision(c), s.recall(c), s.tp[c], s.tp[c]+s.fn[c])
		if f, ok := floor[c]; ok && (s.precision(c) < f[0] || s.recall(c) < f[1]) {
			t.Errorf("%s %s: precision %.2f recall %.2f, want >= %.2f / %.2f", set, c, s.precision(c), s.recall(c), f[0], f[1])
		}
	}
	t.Logf("FIGURE %s accuracy %.2f (%d/%d)", set, s.accuracy(), s.correct, s.n)
	if s.accuracy() < accFloor {
		t.Errorf("%s accuracy %.2f, want >= %.2f", set, s.accuracy(), accFloor)
	}
}

// scoreRelSet runs Relate (no model) over a labelled set; logMisses
// lists the pairs it gets wrong (never for the held-out set: reading its
// misses is how a set stops measuring anything).
func scoreRelSet(t *testing.T, name string, logMisses bool) *relScore {
	t.Helper()
	var s relScore
	for _, p := range loadRelPairs(t, name) {
		got := Relate(p.New, p.Old, -1)
		s.add(got, p.Label)
		if got != p.Label && logMisses {
			t.Logf("miss (%s): %q vs %q: got %s, want %s", p.Lang, p.New, p.Old, got, p.Label)
		}
	}
	return &s
}

// floorAll is the same precision and recall floor for every class.
func floorAll(prec, rec float64) map[Relation][2]float64 {
	out := map[Relation][2]float64{}
	for _, c := range relClasses {
		out[c] = [2]float64{prec, rec}
	}
	return out
}

// TestRelate_LabelledSet measures Relate on the committed labelled pairs
// (`go test -run 'TestRelate_.*Set' -v ./text/` prints precision and
// recall per class for each set) and guards the figures from regressing.
func TestRelate_LabelledSet(t *testing.T) {
	s := scoreRelSet(t, "testdata/hygiene.jsonl", true)
	if s.n < 80 {
		t.Fatalf("%d pairs, want >= 80", s.n)
	}
	// Measured 0.95..1.00 per class, accuracy 0.99 (88 pairs: one pair
	// is 1.1 points of recall).
	s.check(t, "old", floorAll(0.85, 0.85), 0.93)
}

// TestRelate_DevSet measures Relate on the development pairs
// (testdata/hygiene_dev.jsonl), written to develop the rules on.
func TestRelate_DevSet(t *testing.T) {
	s := scoreRelSet(t, "testdata/hygiene_dev.jsonl", true)
	// Measured 0.94..1.00 per class, accuracy 0.97 (336 pairs).
	s.check(t, "dev", floorAll(0.85, 0.85), 0.9)
}

// TestRelate_BlindSet measures Relate on the held-out pairs
// (testdata/hygiene_blind.jsonl, see testdata/BLIND.md): it prints the
// figures, not the misses.
func TestRelate_BlindSet(t *testing.T) {
	s := scoreRelSet(t, "testdata/hygiene_blind.jsonl", false)
	if s.n < 240 {
		t.Fatalf("%d pairs, want >= 240", s.n)
	}
	s.check(t, "blind", blindFloor, 0.8)
}

// blindFloor guards the held-out figures (measured: near-duplicate
// precision 0.95 recall 0.68, contradiction 0.92 / 0.80, refinement 0.82 /
// 0.98, unrelated 0.81 / 0.98; accuracy 0.86), about 0.05 below each.
// Near-duplicate and contradiction recall and refinement and unrelated
// precision are still below 0.85: restatements in other words and
// contradictions that share few words need the model's similarity.
var blindFloor = map[Relation][2]float64{
	RelNearDuplicate: {0.88, 0.63},
	RelContradiction: {0.87, 0.73},
	RelRefinement:    {0.75, 0.90},
	RelUnrelated:     {0.76, 0.95},
}

func TestRelate_Cases(t *testing.T) {
	tests := []struct {
		newer, older string
		cos          float64
		want         Relation
	}{
		{"Alice prefers light mode", "Alice prefers dark mode", -1, RelContradiction},
		{"We deployed nginx with Ansible on all servers", "We deployed nginx with Ansible", -1, RelRefinement},
		{"Alice lives in Berlin", "Alice likes tea", -1, RelUnrelated},
		{"We no longer use Jenkins", "We use Jenkins", -1, RelContradiction},
		{"Run 3 replicas", "Run 2 replicas", -1, RelContradiction},
		{"Alice likes dark mode", "Alice prefers dark mode", 0.97, RelNearDuplicate},
		{"Alice likes dark mode", "Alice prefers dark mode", 0.1, RelUnrelated},
		{"", "anything", -1, RelUnrelated},
		// Paraphrase and reordering, generic verbs aside.
		{"Our CI uses GitHub Actions on self-hosted runners", "CI runs on GitHub Actions with self-hosted runners", -1, RelNearDuplicate},
		{"Сервис оплаты принадлежит Борису", "Борис владеет сервисом оплаты", -1, RelNearDuplicate},
		{"Every Monday Renovate creates PRs to update dependencies", "Renovate opens dependency update pull requests every Monday", -1, RelNearDuplicate},
		// A one-word antonym swap in a long sentence is no near-duplicate.
		{"The user prefers the light theme in the terminal, the editor and the Slack desktop app", "The user prefers the dark theme in the terminal, the editor and the Slack desktop app", -1, RelContradiction},
		{"Port 22 on the bastion is closed", "Port 22 on the bastion is open", -1, RelContradiction},
		{"Порт SSH на бастионе закрыт", "Порт SSH на бастионе открыт", -1, RelContradiction},
		// Stopping, worded differently.
		{"We stopped using Ansible; deploys go through Argo CD now", "We deploy all services with Ansible", -1, RelContradiction},
		{"Мы больше не используем Jenkins", "Мы используем Jenkins для сборок", -1, RelContradiction},
		{"Мы отказались от Jenkins", "Сборки идут в Jenkins", -1, RelContradiction},
		// Role and team changes.
		{"Ivan is now a product manager", "Ivan is a backend engineer", -1, RelContradiction},
		{"Oscar moved to the platform team", "Oscar is on the support team", -1, RelContradiction},
		// Must / may.
		{"Pull requests may be merged before CI passes", "Pull requests must pass CI before they are merged", -1, RelContradiction},
		// Numbers in any form.
		{"Backups start at 4am", "Backups start at 2am", -1, RelContradiction},
		{"The API client pins v1.3", "The API client pins v1.2", -1, RelContradiction},
		{"The primary database is db-3", "The primary database is db-2", -1, RelContradiction},
		{"Grafana listens on port 3001", "Grafana listens on port 3000", -1, RelContradiction},
		{"Releases go out on Fridays", "Releases go out on Thursdays", -1, RelContradiction},
		{"Релизы выходят по пятницам", "Релизы выходят по четвергам", -1, RelContradiction},
		{"Code review needs one approval", "Code review needs two approvals", -1, RelContradiction},
		// A refinement keeps the old numbers and adds detail.
		{"Backups start at 2am and are kept for 30 days", "Backups start at 2am", -1, RelRefinement},
		{"Пользователь предпочитает тёмную тему, а конкретно Gruvbox в Neovim", "Пользователь предпочитает тёмную тему", -1, RelRefinement},
		// Spelling variants are the same word.
		{"We deploy nginx with Ansible; the playbook is deploy/nginx.yaml", "We deploy nginx with Ansible; the playbook is deploy/nginx.yml", -1, RelNearDuplicate},
		// A name with digits ("1Password") is a word, not a number.
		{"We keep secrets in 1Password, in a vault per team", "We keep secrets in 1Password", -1, RelRefinement},
		{"The 1Password CLI needs version 2", "The 1Password CLI needs version 3", -1, RelContradiction},
		// The model joins: a restatement in other words, and no similarity
		// hides a contradiction.
		{"Frontend crashes are reported to Sentry", "Sentry collects browser exceptions", 0.93, RelNearDuplicate},
		{"Alice prefers light mode", "Alice prefers dark mode", 0.97, RelContradiction},
	}
	for _, tc := range tests {
		if got := Relate(tc.newer, tc.older, tc.cos); got != tc.want {
			t.Errorf("Relate(%q, %q, %v) = %s, want %s", tc.newer, tc.older, tc.cos, got, tc.want)
		}
	}
}

func FuzzRelate(f *testing.F) {
	for _, s := range [][2]string{
		{"We stopped using Ansible; deploys go through Argo CD now", "We deploy all services with Ansible"},
		{"Backups start at 2am", "Backups start at 4am"},
		{"Мы больше не используем Jenkins", "Мы используем Jenkins"},
		{"no", "not"}, {"k8s v1.2 db-2 2am", "PR 1password"}, {"", "x"},
	} {
		f.Add(s[0], s[1])
	}
	f.Fuzz(func(t *testing.T, a, b string) {
		got := Relate(a, b, -1)
		if again := Relate(a, b, -1); again != got {
			t.Fatalf("Relate(%q, %q) = %s, then %s", a, b, got, again)
		}
		if !slices.Contains(relClasses, got) {
			t.Fatalf("Relate(%q, %q) = %q", a, b, got)
		}
		// A fact compared with itself is the same statement, or shares no
		// content word with anything.
		if self := Relate(a, a, -1); self != RelNearDuplicate && self != RelUnrelated {
			t.Fatalf("Relate(%q, itself) = %s", a, self)
		}
		NewRelaterTokens(Tokens(a)).RelateTo(NewRelater(b), 0.5)
	})
}
