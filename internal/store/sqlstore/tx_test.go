package sqlstore

import "testing"

func TestRebind(t *testing.T) {
	tests := []struct{ in, want string }{
		{"SELECT 1", "SELECT 1"},
		{"SELECT id FROM facts WHERE id = ?", "SELECT id FROM facts WHERE id = $1"},
		{"a = ? AND b IN (?, ?) LIMIT ?", "a = $1 AND b IN ($2, $3) LIMIT $4"},
		{"already $1", "already $1"},
	}
	for _, tt := range tests {
		for range 2 { // the second answer comes from the cache
			if got := Rebind(tt.in); got != tt.want {
				t.Errorf("Rebind(%q) = %q; want %q", tt.in, got, tt.want)
			}
		}
	}
}
