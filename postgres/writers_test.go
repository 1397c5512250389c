package postgres_test

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"regexp"
	"strconv"
	"sync"
	"testing"
	"time"

	"github.com/holomem/holomem"
	"github.com/holomem/holomem/internal/testkit/pgtest"
	"github.com/holomem/holomem/postgres"
)

const (
	writerAddrEnv = "HOLOMEM_TEST_WRITER_ADDR"
	writerIDEnv   = "HOLOMEM_TEST_WRITER_ID"
	writers       = 8
	sharedFacts   = 50 // of each writer's facts, the same content in every writer
)

// perWriter is 500 facts per writer; under -race (CI) 150, because every
// writer is an instrumented process and the point there is the race
// detector, not the volume.
var perWriter = func() int {
	if postgres.RaceEnabled {
		return 150
	}
	return 500
}()

// TestConcurrentWriters starts 8 processes (this test binary, running
// TestWriterProcess) that open one new schema at once (racing on the
// migration) and write 500 facts each (150 under -race), one transaction per fact: 450 of
// their own and 50 that every writer writes (unique-index races), all
// naming the same entities (entity-creation races), voting on the shared
// facts (row-lock contention) and adding and deleting temporary facts
// whose entity the others keep linking (prune races). Nothing may be lost
// and no writer may see an error: PostgreSQL's serialization failures and
// deadlocks are retried inside the store.
func TestConcurrentWriters(t *testing.T) {
	if testing.Short() {
		t.Skip("starts 8 processes writing 500 facts each; skipped with -short")
	}
	addr := pgtest.Addr(t)
	ctx, cancel := context.WithTimeout(t.Context(), 5*time.Minute)
	defer cancel()
	var wg sync.WaitGroup
	outs := make([][]byte, writers)
	errs := make([]error, writers)
	for i := range writers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			cmd := exec.CommandContext(ctx, os.Args[0], "-test.run=^TestWriterProcess$", "-test.count=1")
			cmd.Env = append(os.Environ(), writerAddrEnv+"="+addr, writerIDEnv+"="+strconv.Itoa(i))
			outs[i], errs[i] = cmd.CombinedOutput()
		}()
	}
	wg.Wait()
	for i := range writers {
		if errs[i] != nil {
			t.Errorf("writer %d: %v\n%s", i, errs[i], outs[i])
		}
		if m := retriesRE.FindSubmatch(outs[i]); m != nil {
			t.Logf("writer %d: %s transactions retried", i, m[1])
		}
	}
	s := mustOpen(t, addr)
	_, total, err := s.FindFacts(ctx, holomem.FactFilter{IncludeSuperseded: true})
	if err != nil {
		t.Fatal(err)
	}
	if want := writers*(perWriter-sharedFacts) + sharedFacts; total != want {
		t.Errorf("facts = %d, want %d", total, want)
	}
	for _, name := range []string{"Kafka", "Zed"} {
		ids, err := s.FactIDsByEntity(ctx, "", name)
		if err != nil || len(ids) != total {
			t.Errorf("FactIDsByEntity(%s) = %d ids, %v; want %d", name, len(ids), err, total)
		}
	}
	shared, _, err := s.FindFacts(ctx, holomem.FactFilter{Source: ptr("shared")})
	if err != nil {
		t.Fatal(err)
	}
	for _, f := range shared {
		if f.HelpfulCount != writers {
			t.Errorf("shared fact %d has %d helpful votes, want %d (one per writer)", f.ID, f.HelpfulCount, writers)
			break
		}
	}
}

// TestWriterProcess is one writer of TestConcurrentWriters; it does
// nothing unless that test started it.
func TestWriterProcess(t *testing.T) {
	addr := os.Getenv(writerAddrEnv)
	if addr == "" {
		t.Skip("run by TestConcurrentWriters")
	}
	id, _ := strconv.Atoi(os.Getenv(writerIDEnv))
	ctx := context.Background()
	s, err := postgres.Open(ctx, addr, postgres.WithMaxConns(2))
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	defer func() { fmt.Printf("writer retries: %d\n", s.Retries()) }()
	for j := range perWriter {
		f := &holomem.Fact{Content: fmt.Sprintf("Writer %d notes that Kafka and Zed handled batch %d", id, j), Source: "own"}
		if j < sharedFacts {
			f = &holomem.Fact{Content: fmt.Sprintf("Everyone knows Kafka and Zed handled shared batch %d", j), Source: "shared"}
		}
		if _, err := s.CreateFact(ctx, f); err != nil {
			t.Fatalf("create %d: %v", j, err)
		}
		if j < sharedFacts {
			if _, err := s.RecordFeedback(ctx, f.ID, true); err != nil {
				t.Fatalf("feedback %d: %v", j, err)
			}
		}
		if j%10 == 0 {
			tmp := &holomem.Fact{Content: fmt.Sprintf("Temporary note %d/%d about Zed and Quux", id, j)}
			if _, err := s.CreateFact(ctx, tmp); err != nil {
				t.Fatalf("create temporary %d: %v", j, err)
			}
			if err := s.DeleteFact(ctx, tmp.ID); err != nil {
				t.Fatalf("delete temporary %d: %v", j, err)
			}
		}
	}
}

var retriesRE = regexp.MustCompile(`writer retries: (\d+)`)

func ptr[T any](v T) *T { return &v }
