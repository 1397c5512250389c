package importer_test

import (
	"fmt"
	"os"
	"strings"
	"time"

	"github.com/holomem/holomem"
	"github.com/holomem/holomem/importer"
)

func ExampleGitHub() {
	// What `gh pr list --json number,title,body,headRefName,url` prints.
	prs := `[{"number":4411,"title":"fix(config #4409): nil check","body":"Also closes #4400.",
	  "headRefName":"fix/4409-nil","url":"https://github.com/acme/app/pull/4411"}]`
	sum, err := importer.GitHub(strings.NewReader(prs), "", func(r importer.Record) error {
		fmt.Println(r.Key, r.Fact.Category)
		for _, l := range r.Links {
			fmt.Printf("  %s %s -> %s (%s)\n", l.Kind, l.FromKey, l.ToKey, l.Reason)
		}
		return nil
	})
	if err != nil {
		fmt.Println(err)
	}
	fmt.Println(sum.ReasonCounts())
	// Output:
	// github:acme/app#4411 pr
	//   causal github:acme/app#4400 -> github:acme/app#4411 (keyword)
	//   causal github:acme/app#4409 -> github:acme/app#4411 (title,branch)
	// [branch=1 keyword=1 title=1]
}

func ExampleJSONLWriter() {
	t0 := time.Date(2025, 1, 2, 3, 4, 5, 0, time.UTC)
	w := importer.NewJSONLWriter(os.Stdout)
	w.Now = func() time.Time { return t0 }
	_ = w.WriteFact(&holomem.Fact{ID: 1, Namespace: "default", Content: "Issue 12: crash", Category: "issue",
		ExternalKey: "github:acme/app#12", Trust: 0.5, CreatedAt: t0, UpdatedAt: t0})
	_ = w.WriteFact(&holomem.Fact{ID: 2, Namespace: "default", Content: "PR 13 fixes it", Category: "pr",
		Trust: 0.5, CreatedAt: t0, UpdatedAt: t0})
	_ = w.WriteEdge(&holomem.Edge{From: 1, To: 2, Kind: holomem.EdgeCausal, Weight: 1, Origin: "import", CreatedAt: t0})
	_ = w.Flush()
	// Output:
	// {"type":"header","format":"holomem-jsonl","version":1,"exported_at":"2025-01-02T03:04:05Z"}
	// {"type":"fact","id":1,"namespace":"default","content":"Issue 12: crash","category":"issue","external_key":"github:acme/app#12","trust":0.5,"retrieval_count":0,"helpful_count":0,"unhelpful_count":0,"created_at":"2025-01-02T03:04:05Z","updated_at":"2025-01-02T03:04:05Z"}
	// {"type":"fact","id":2,"namespace":"default","content":"PR 13 fixes it","category":"pr","trust":0.5,"retrieval_count":0,"helpful_count":0,"unhelpful_count":0,"created_at":"2025-01-02T03:04:05Z","updated_at":"2025-01-02T03:04:05Z"}
	// {"type":"edge","from_key":"github:acme/app#12","from":1,"to":2,"kind":"causal","weight":1,"origin":"import","created_at":"2025-01-02T03:04:05Z"}
}

func ExampleJSONL() {
	export := `{"type":"header","format":"holomem-jsonl","version":1}
{"type":"fact","id":1,"content":"Issue 12: crash","external_key":"github:acme/app#12","trust":0.5}
{"type":"fact","id":2,"content":"PR 13 fixes it","trust":0.5}
{"type":"edge","from":1,"to":2,"kind":"causal","weight":1}
`
	ids := map[string]int64{} // record key -> id in the new store
	next := int64(100)
	var links []importer.Link
	_, err := importer.JSONL(strings.NewReader(export), func(r importer.Record) error {
		if r.Fact != nil {
			ids[r.Key] = next // store.CreateFact(ctx, r.Fact) would give the id
			next++
		}
		links = append(links, r.Links...)
		return nil
	})
	if err != nil {
		fmt.Println(err)
	}
	for _, l := range links {
		fmt.Printf("%s: %d -> %d\n", l.Kind, ids[l.FromKey], ids[l.ToKey])
	}
	// Output:
	// causal: 100 -> 101
}
