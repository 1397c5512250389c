package lazyre

import "testing"

func TestNew(t *testing.T) {
	re := New(`^a+b$`)
	first, second := re(), re()
	if first != second {
		t.Error("New compiled the expression twice")
	}
	if !re().MatchString("aab") || re().MatchString("ab c") {
		t.Error("the compiled expression does not match as written")
	}
	bad := New(`(`)
	defer func() {
		if recover() == nil {
			t.Error("a bad expression did not panic on first use")
		}
	}()
	bad()
}
