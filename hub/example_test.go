package hub_test

import (
	"context"
	"fmt"
	"log"

	"github.com/holomem/holomem/hub"
)

// ExampleClient_Pull shows `holomem model pull`: download once, then find
// the directory to load the model from. (Not run: it needs the real hub.)
func ExampleClient_Pull() {
	c := hub.NewClient()
	c.Progress = func(file string, done, total int64) {
		fmt.Printf("\r%s %d/%d", file, done, total)
	}
	dir := hub.DefaultDir()
	m, err := c.Pull(context.Background(), "sentence-transformers/paraphrase-multilingual-MiniLM-L12-v2", "main", dir)
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println("\ninstalled", m.Repo, "at", m.Commit, "in", m.Dir)

	path, err := hub.Find(dir, "paraphrase-multilingual-MiniLM-L12-v2")
	if err != nil {
		log.Fatal(err) // wraps holomem.ErrNotFound: "run: holomem model pull NAME"
	}
	fmt.Println(path)
}
