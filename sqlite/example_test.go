package sqlite_test

import (
	"context"
	"fmt"
	"log"
	"os"
	"path/filepath"

	"github.com/holomem/holomem"
	"github.com/holomem/holomem/sqlite"
)

// Open a store, remember two facts and search them: inflected query words
// match, and operator characters are plain data.
func ExampleOpen() {
	ctx := context.Background()
	dir, err := os.MkdirTemp("", "holomem-example")
	if err != nil {
		log.Fatal(err)
	}
	defer os.RemoveAll(dir)

	s, err := sqlite.Open(ctx, filepath.Join(dir, "memory.db"))
	if err != nil {
		log.Fatal(err)
	}
	defer s.Close()

	for _, c := range []string{"Alice deployed the billing service on Friday", "Столица России — Москва"} {
		f := &holomem.Fact{Content: c}
		if _, err := s.CreateFact(ctx, f); err != nil {
			log.Fatal(err)
		}
		fmt.Println(f.ID, f.Entities)
	}
	for _, q := range []string{"deploying (billing", "россия"} {
		ms, err := s.SearchText(ctx, "", q, 5)
		if err != nil {
			log.Fatal(err)
		}
		fmt.Printf("%s: %v\n", q, ms)
	}
	// Output:
	// 1 [Alice Friday]
	// 2 [Столица России Москва]
	// deploying (billing: [{1 1}]
	// россия: [{2 1}]
}
