package text

import (
	"fmt"
	"os"
	"testing"
)

func TestDbgRel(t *testing.T) {
	a, b := os.Getenv("A"), os.Getenv("B")
	ra, rb := NewRelater(a), NewRelater(b)
	fmt.Printf("A %+v\nB %+v\n%+v\n%s\n", *ra, *rb, overlap(ra, rb), ra.RelateTo(rb, -1))
}
