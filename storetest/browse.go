package storetest

import (
	"errors"
	"fmt"
	"slices"
	"testing"
	"time"

	"github.com/holomem/holomem"
)

// testBrowseKeyset pages through every order in both directions with
// deliberate key ties and checks each listing equals a sort of all facts.
func testBrowseKeyset(t *testing.T, s holomem.Store) {
	ctx := t.Context()
	b := capability[holomem.FactBrowser](t, s)
	base := time.Date(2025, 1, 1, 0, 0, 0, 0, time.UTC)
	var all []*holomem.Fact
	for i := range 9 {
		f := &holomem.Fact{Content: fmt.Sprintf("browse fact %d", i), Namespace: "b",
			Trust: 0.25 * float64(i%3+1), CreatedAt: base.Add(time.Duration(i%4) * time.Hour),
			UpdatedAt: base.Add(time.Duration(i%2) * time.Hour)}
		all = append(all, create(t, s, f))
	}
	for i := range 3 { // retrieval counts 0,1,2 with ties
		if err := s.MarkRetrieved(ctx, []int64{all[i].ID, all[i+3].ID}); err != nil {
			t.Fatal(err)
		}
		for _, j := range []int{i, i + 3} {
			all[j].RetrievalCount++
		}
	}
	key := map[holomem.BrowseOrder]func(f *holomem.Fact) float64{
		holomem.BrowseUpdated:    func(f *holomem.Fact) float64 { return float64(f.UpdatedAt.UnixNano()) },
		holomem.BrowseEvent:      func(f *holomem.Fact) float64 { return float64(f.CreatedAt.UnixNano()) },
		holomem.BrowseTrust:      func(f *holomem.Fact) float64 { return f.Trust },
		holomem.BrowseRetrievals: func(f *holomem.Fact) float64 { return float64(f.RetrievalCount) },
		holomem.BrowseID:         func(f *holomem.Fact) float64 { return 0 },
	}
	ns := "b"
	for _, o := range holomem.BrowseOrders {
		for _, asc := range []bool{false, true} {
			want := slices.Clone(all)
			slices.SortFunc(want, func(x, y *holomem.Fact) int {
				c := 0
				if kx, ky := key[o](x), key[o](y); kx < ky {
					c = -1
				} else if kx > ky {
					c = 1
				}
				if c == 0 && x.ID != y.ID {
					c = -1
					if x.ID > y.ID {
						c = 1
					}
				}
				if !asc {
					c = -c
				}
				return c
			})
			var got []int64
			flt := holomem.BrowseFilter{Namespace: &ns, Order: o, Ascending: asc, Limit: 2}
			for range 10 {
				page, err := b.BrowseFacts(ctx, flt)
				if err != nil {
					t.Fatalf("%s asc=%v: %v", o, asc, err)
				}
				if len(page) == 0 {
					break
				}
				got = append(got, ids(page)...)
				c := o.CursorOf(page[len(page)-1])
				flt.After = &c
			}
			if !slices.Equal(got, ids(want)) {
				t.Errorf("order %s asc=%v: pages = %v, want %v", o, asc, got, ids(want))
			}
		}
	}
	n, err := b.CountFacts(ctx, holomem.BrowseFilter{Namespace: &ns, Limit: 1})
	if err != nil || n != 9 {
		t.Errorf("CountFacts = %d (%v), want 9", n, err)
	}
}

// testBrowseFilters checks each filter of a browse listing on its own.
func testBrowseFilters(t *testing.T, s holomem.Store) {
	ctx := t.Context()
	b := capability[holomem.FactBrowser](t, s)
	base := time.Date(2025, 3, 1, 0, 0, 0, 0, time.UTC)
	a := create(t, s, &holomem.Fact{Content: "alpha fact", Namespace: "f", Category: "decision", Tags: []string{"db", "x"}, Source: "git", Trust: 0.9, CreatedAt: base, UpdatedAt: base})
	bb := create(t, s, &holomem.Fact{Content: "beta fact", Namespace: "f", Category: "note", Tags: []string{"y"}, Source: "chat", Trust: 0.2, CreatedAt: base.Add(48 * time.Hour), UpdatedAt: base.Add(72 * time.Hour)})
	c := create(t, s, &holomem.Fact{Content: "gamma fact", Namespace: "f", Category: "decision", Tags: []string{"db"}, Source: "chat", Trust: 0.5, CreatedAt: base.Add(24 * time.Hour), UpdatedAt: base.Add(24 * time.Hour)})
	create(t, s, &holomem.Fact{Content: "other namespace", Namespace: "g"})
	if err := s.Supersede(ctx, c.ID, bb.ID); err != nil {
		t.Fatal(err)
	}
	ns := "f"
	tests := []struct {
		name string
		f    holomem.BrowseFilter
		want []int64
	}{
		{"Namespace", holomem.BrowseFilter{}, []int64{a.ID, bb.ID}},
		{"Category", holomem.BrowseFilter{Category: ptr("decision"), Superseded: holomem.SupersededShow}, []int64{a.ID, c.ID}},
		{"Tag", holomem.BrowseFilter{Tag: ptr("db"), Superseded: holomem.SupersededShow}, []int64{a.ID, c.ID}},
		{"Source", holomem.BrowseFilter{Source: ptr("chat")}, []int64{bb.ID}},
		{"TrustRange", holomem.BrowseFilter{MinTrust: ptr(0.3), MaxTrust: ptr(0.6), Superseded: holomem.SupersededShow}, []int64{c.ID}},
		{"Created", holomem.BrowseFilter{CreatedFrom: base.Add(time.Hour), CreatedTo: base.Add(30 * time.Hour), Superseded: holomem.SupersededShow}, []int64{c.ID}},
		{"Updated", holomem.BrowseFilter{UpdatedFrom: base.Add(60 * time.Hour)}, []int64{bb.ID}},
		{"SupersededOnly", holomem.BrowseFilter{Superseded: holomem.SupersededOnly}, []int64{c.ID}},
		{"SupersededShow", holomem.BrowseFilter{Superseded: holomem.SupersededShow}, []int64{a.ID, bb.ID, c.ID}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			tt.f.Namespace, tt.f.Order, tt.f.Ascending, tt.f.Limit = &ns, holomem.BrowseID, true, 50
			got, err := b.BrowseFacts(ctx, tt.f)
			if err != nil || !slices.Equal(ids(got), tt.want) {
				t.Errorf("BrowseFacts = %v (%v), want %v", ids(got), err, tt.want)
			}
			n, err := b.CountFacts(ctx, tt.f)
			if err != nil || n != len(tt.want) {
				t.Errorf("CountFacts = %d (%v), want %d", n, err, len(tt.want))
			}
		})
	}
	if _, err := b.BrowseFacts(ctx, holomem.BrowseFilter{Order: "nope"}); !errors.Is(err, holomem.ErrInvalid) {
		t.Errorf("unknown order: err = %v, want ErrInvalid", err)
	}
	if _, err := b.BrowseFacts(ctx, holomem.BrowseFilter{MinTrust: ptr(2.0)}); !errors.Is(err, holomem.ErrInvalid) {
		t.Errorf("trust 2: err = %v, want ErrInvalid", err)
	}
}
