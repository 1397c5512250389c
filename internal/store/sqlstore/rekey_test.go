package sqlstore

import (
	"slices"
	"testing"
)

func TestPlanRekey(t *testing.T) {
	for _, tc := range []struct {
		name string
		es   []EntityRow
		want []RekeyStep
	}{
		{"up to date", []EntityRow{{1, "d", "Alice", "alice"}}, nil},
		{"new key", []EntityRow{{1, "d", "Алексея", "алексея"}}, []RekeyStep{{ID: 1, Key: "алекс"}}},
		{"forms merge into the entity holding the key", []EntityRow{
			{1, "d", "Алексей", "алексей"}, {2, "d", "Алексея", "алексея"}, {3, "o", "Алексея", "алексея"},
		}, []RekeyStep{{ID: 1, Key: "алекс"}, {ID: 2, Key: "алекс", Into: 1}, {ID: 3, Key: "алекс"}}},
		{"a key already held", []EntityRow{{1, "d", "Маша", "маш"}, {2, "d", "Машей", "машей"}},
			[]RekeyStep{{ID: 2, Key: "маш", Into: 1}}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if got := PlanRekey(tc.es); !slices.Equal(got, tc.want) {
				t.Errorf("PlanRekey = %+v, want %+v", got, tc.want)
			}
		})
	}
}

func TestPlanAliasRekey(t *testing.T) {
	got := PlanAliasRekey([]AliasRow{{"d", "Bob", "bob"}, {"d", "Машей", "машей"}})
	want := []AliasRekey{{AliasRow{"d", "Машей", "машей"}, "маш"}}
	if !slices.Equal(got, want) {
		t.Errorf("PlanAliasRekey = %+v, want %+v", got, want)
	}
}
