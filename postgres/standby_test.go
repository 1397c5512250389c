package postgres_test

import (
	"errors"
	"fmt"
	"net/url"
	"testing"

	"github.com/holomem/holomem"
	"github.com/holomem/holomem/internal/testkit/pgtest"
	"github.com/holomem/holomem/postgres"
)

// withStandby returns the test schema's address with the standby
// parameter naming hostPort.
func withStandby(t *testing.T, addr, hostPort string) string {
	t.Helper()
	u, err := url.Parse(addr)
	if err != nil {
		t.Fatal(err)
	}
	q := u.Query()
	q.Set(postgres.StandbyParam, hostPort)
	// As in production: the tests' asynchronous commit leaves a commit in
	// WAL buffers for up to the WAL writer's delay, so no standby could
	// replay it within the read's wait.
	q.Set("synchronous_commit", "on")
	u.RawQuery = q.Encode()
	return u.String()
}

// TestStandby_readYourWrites: with a hot standby, every write is seen by
// the next read of the same process (the read waits for the standby to
// replay it, or reads the primary), and reads do go to the standby.
func TestStandby_readYourWrites(t *testing.T) {
	host := pgtest.StandbyHost(t)
	ctx := t.Context()
	s, err := postgres.Open(ctx, withStandby(t, pgtest.Addr(t), host))
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	for i := range 100 {
		f := &holomem.Fact{Content: fmt.Sprintf("Standby note %d: the release train leaves on Tuesday", i), Category: "note"}
		if _, err := s.CreateFact(ctx, f); err != nil {
			t.Fatal(err)
		}
		got, err := s.FindFactByID(ctx, f.ID)
		if err != nil {
			t.Fatalf("read after write %d: %v", i, err)
		}
		if got.Content != f.Content {
			t.Fatalf("read after write %d: %q", i, got.Content)
		}
		content := f.Content + " (moved to Wednesday)"
		if _, err := s.UpdateFact(ctx, f.ID, holomem.FactUpdate{Content: &content}); err != nil {
			t.Fatal(err)
		}
		if got, err = s.FindFactByID(ctx, f.ID); err != nil || got.Content != content {
			t.Fatalf("read after update %d: %v", i, err)
		}
	}
	if _, total, err := s.FindFacts(ctx, holomem.FactFilter{Limit: 1000}); err != nil || total != 100 {
		t.Fatalf("FindFacts after the writes: total %d, %v", total, err)
	}
	st := s.StandbyStats()
	t.Logf("FIGURE standby reads %d, primary reads %d, waits %d, fallbacks %d", st.StandbyReads, st.PrimaryReads, st.Waits, st.Fallbacks)
	if st.Standbys != 1 || st.StandbyReads == 0 {
		t.Errorf("no read went to the standby: %+v", st)
	}
}

// TestStandby_lostStandbyReadsPrimary: a standby that goes away costs
// nothing but its speed: reads run on the primary.
func TestStandby_lostStandbyReadsPrimary(t *testing.T) {
	host := pgtest.StandbyHost(t)
	ctx := t.Context()
	px := pgtest.StartProxy(t, host, "127.0.0.1:0")
	s, err := postgres.Open(ctx, withStandby(t, pgtest.Addr(t), px.Addr()))
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	f := &holomem.Fact{Content: "The staging database is Postgres 16", Category: "project"}
	if _, err := s.CreateFact(ctx, f); err != nil {
		t.Fatal(err)
	}
	if _, err := s.FindFactByID(ctx, f.ID); err != nil {
		t.Fatal(err)
	}
	px.Cut()
	before := s.StandbyStats().PrimaryReads
	for range 5 {
		if got, err := s.FindFactByID(ctx, f.ID); err != nil || got.Content != f.Content {
			t.Fatalf("read with the standby gone: %v", err)
		}
	}
	if st := s.StandbyStats(); st.PrimaryReads-before < 5 {
		t.Errorf("reads with the standby gone did not go to the primary: %+v", st)
	}
}

// A server that is not in recovery is refused as a standby: its answers
// would be another database's.
func TestStandby_refusesPrimary(t *testing.T) {
	addr := pgtest.Addr(t)
	u, _ := url.Parse(addr)
	_, err := postgres.Open(t.Context(), withStandby(t, addr, u.Host))
	if !errors.Is(err, holomem.ErrInvalid) {
		t.Fatalf("the primary named as its own standby: %v, want ErrInvalid", err)
	}
}

func TestStandby_badParameter(t *testing.T) {
	for _, v := range []string{"", "nohost", "a:1,,b:2"} {
		_, err := postgres.Open(t.Context(), "postgres://u@127.0.0.1:1/db?standby="+url.QueryEscape(v))
		if !errors.Is(err, holomem.ErrInvalid) {
			t.Errorf("standby=%q: %v, want ErrInvalid", v, err)
		}
	}
}
