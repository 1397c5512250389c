package hrr_test

import (
	"crypto/sha256"
	"encoding/binary"
	"encoding/hex"
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
	"testing"

	"github.com/holomem/holomem/hrr"
)

// Stored vectors depend on these bits: if a golden value changes, every
// store must be re-encoded, so bump hrr.EncodingVersion instead.
func TestAtom_Golden(t *testing.T) {
	sum := sha256.Sum256(hrr.Marshal(hrr.Atom("nginx")))
	if got, want := hex.EncodeToString(sum[:]), "57d4af0262f282cc03bc12536be0d4e7d4e8b21cd24f75312864ab003ad5f920"; got != want {
		t.Errorf("Atom(nginx) digest = %s, want %s", got, want)
	}
	sum = sha256.Sum256(hrr.Marshal(hrr.EncodeFact([]string{"deploy", "nginx", "order"}, []string{"Nginx", "CI"})))
	if got, want := hex.EncodeToString(sum[:]), "782790d756187b155a5f24130f1b53db7be48435580d0ebe2de223b4c71c7e19"; got != want {
		t.Errorf("EncodeFact digest = %s, want %s", got, want)
	}
}

// TestAtom_Derivation recomputes phases from the spec in doc.go.
func TestAtom_Derivation(t *testing.T) {
	a := hrr.Atom("nginx")
	for _, i := range []int{0, 1, 15, 16, 17, 500, hrr.Dim - 1} {
		buf := binary.BigEndian.AppendUint32(nil, uint32(i/16))
		d := sha256.Sum256(append(buf, "nginx"...))
		p := binary.BigEndian.Uint16(d[2*(i%16):])
		if want := float64(p) * 2 * math.Pi / 65536; a[i] != want {
			t.Errorf("phase %d = %v, want %v", i, a[i], want)
		}
	}
}

func TestAtom_Orthogonal(t *testing.T) {
	floor := hrr.NoiseFloor(hrr.DefaultSigmas)
	a := hrr.Atom("alpha")
	if s := hrr.Similarity(a, hrr.Atom("alpha")); s != 1 {
		t.Errorf("self similarity %v, want 1", s)
	}
	for i := range 50 {
		if s := hrr.Similarity(a, hrr.Atom(fmt.Sprint("beta", i))); math.Abs(s) > floor {
			t.Errorf("alpha vs beta%d similarity %v, want |s| < %v", i, s, floor)
		}
	}
	if s := hrr.Similarity(hrr.RoleContent(), hrr.RoleEntity()); math.Abs(s) > floor {
		t.Errorf("roles similarity %v", s)
	}
}

func TestBind_Unbind(t *testing.T) {
	a, b := hrr.Atom("a"), hrr.Atom("b")
	ab := hrr.Bind(a, b)
	if s := hrr.Similarity(hrr.Unbind(ab, b), a); s < 1-1e-12 {
		t.Errorf("unbind(bind(a,b),b)·a = %v, want 1", s)
	}
	if s := hrr.Similarity(ab, a); math.Abs(s) > hrr.NoiseFloor(5) {
		t.Errorf("bind(a,b)·a = %v, want ~0", s)
	}
	for _, th := range ab {
		if th < 0 || th >= 2*math.Pi {
			t.Fatalf("phase %v out of [0, 2π)", th)
		}
	}
	// Bind distributes over bundling: unbinding a role from a bundle of
	// bound pairs recovers each filler.
	x, y, r := hrr.Atom("x"), hrr.Atom("y"), hrr.Atom("role")
	u := hrr.Unbind(hrr.Bundle(hrr.Bind(x, r), hrr.Bind(y, r)), r)
	if s := hrr.Similarity(u, x); s < 0.5 {
		t.Errorf("unbound bundle vs x = %v, want > 0.5", s)
	}
}

func TestBundle(t *testing.T) {
	a, b, c := hrr.Atom("a"), hrr.Atom("b"), hrr.Atom("c")
	ab := hrr.Bundle(a, b)
	for _, tt := range []struct {
		name   string
		x      hrr.Vector
		lo, hi float64
	}{
		{"member a", a, 0.6, 0.8}, // two phasors: cos of half the angle, mean 2/π
		{"member b", b, 0.6, 0.8},
		{"non-member", c, -0.11, 0.11},
	} {
		if s := hrr.Similarity(ab, tt.x); s < tt.lo || s > tt.hi {
			t.Errorf("%s: similarity %v, want in [%v, %v]", tt.name, s, tt.lo, tt.hi)
		}
	}
	w := hrr.BundleWeighted([]hrr.Vector{a, b}, []float64{3, 1})
	if sa, sb := hrr.Similarity(w, a), hrr.Similarity(w, b); sa <= sb {
		t.Errorf("weight 3 member %v not above weight 1 member %v", sa, sb)
	}
	if s := hrr.Similarity(hrr.Bundle(a), a); s < 1-1e-12 {
		t.Errorf("bundle of one = %v, want the vector", s)
	}
	zero := hrr.Bundle()
	if len(zero) != hrr.Dim || zero[0] != 0 {
		t.Errorf("empty bundle = len %d, first %v", len(zero), zero[0])
	}
}

func TestVector_PanicsOnWrongDim(t *testing.T) {
	defer func() {
		if recover() == nil {
			t.Fatal("no panic for a short vector")
		}
	}()
	hrr.Similarity(make(hrr.Vector, 3), hrr.Atom("a"))
}

func TestEncodeFact_SetSemantics(t *testing.T) {
	a := hrr.Marshal(hrr.EncodeFact([]string{"b", "a", "a", "", "c"}, []string{"X", "y", "x"}))
	b := hrr.Marshal(hrr.EncodeFact([]string{"c", "b", "a"}, []string{"y", "x"}))
	if string(a) != string(b) {
		t.Error("order, repetition, case of entities or empty tokens changed the encoding")
	}
	// Roles keep a content token and an entity of the same spelling apart.
	f := hrr.Marshal(hrr.EncodeFact([]string{"nginx", "deploy", "order", "ci"}, nil))
	if s := hrr.ProbeKey("nginx").Score(f); s > hrr.NoiseFloor(hrr.DefaultSigmas) {
		t.Errorf("content token nginx probes as entity: %v", s)
	}
}

func TestEntityWeight(t *testing.T) {
	for _, tt := range []struct {
		content, entities int
		want              float64
	}{
		{0, 0, 0}, {10, 0, 0}, {0, 3, 1}, {2, 3, 1}, {4, 1, 2}, {20, 5, 2}, {25, 4, 2.5},
	} {
		if got := hrr.EntityWeight(tt.content, tt.entities); math.Abs(got-tt.want) > 1e-12 {
			t.Errorf("EntityWeight(%d, %d) = %v, want %v", tt.content, tt.entities, got, tt.want)
		}
	}
}

func TestMarshal_RoundTrip(t *testing.T) {
	v := hrr.EncodeFact([]string{"a", "b", "c"}, []string{"e"})
	b := hrr.Marshal(v)
	if got, want := len(b), hrr.EncodedLen; got != want {
		t.Fatalf("len = %d, want %d", got, want)
	}
	if b[0] != hrr.EncodingVersion {
		t.Fatalf("version byte %d", b[0])
	}
	u, err := hrr.Unmarshal(b)
	if err != nil {
		t.Fatal(err)
	}
	if s := hrr.Similarity(u, v); s < 0.9999 {
		t.Errorf("round trip similarity %v", s)
	}
	if string(hrr.Marshal(u)) != string(b) {
		t.Error("marshal(unmarshal(b)) != b")
	}
	// Phases outside [0, 2π) and near 2π wrap.
	w := make(hrr.Vector, hrr.Dim)
	w[0], w[1], w[2] = -0.001, 2*math.Pi-1e-9, 7*math.Pi
	got := hrr.Marshal(w)
	if got[1] != 0 || got[2] != 0 || got[3] != 128 {
		t.Errorf("wrapped phases quantised to %d %d %d, want 0 0 128", got[1], got[2], got[3])
	}
}

func TestUnmarshal_Errors(t *testing.T) {
	good := hrr.Marshal(hrr.Atom("a"))
	for _, tt := range []struct {
		name string
		b    []byte
	}{
		{"nil", nil},
		{"short", good[:100]},
		{"long", append(good[:hrr.EncodedLen:hrr.EncodedLen], 0)},
		{"version", append([]byte{2}, good[1:]...)},
	} {
		t.Run(tt.name, func(t *testing.T) {
			if _, err := hrr.Unmarshal(tt.b); !errors.Is(err, hrr.ErrEncoding) {
				t.Errorf("err = %v, want ErrEncoding", err)
			}
			if s := hrr.NewKey(hrr.Atom("a")).Score(tt.b); s != 0 {
				t.Errorf("score of malformed bytes = %v, want 0", s)
			}
		})
	}
}

// TestQuantization measures the similarity error of 8-bit storage: the
// float similarity of a fact and a probe vector against Key.Score on the
// compact bytes (both sides quantised).
func TestQuantization(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 4))
	var sum, worst float64
	n, facts := 0, 200
	if hrr.RaceEnabled {
		facts = 40
	}
	for f := range facts {
		toks := make([]string, 5+rng.IntN(20))
		for i := range toks {
			toks[i] = fmt.Sprint("q", rng.IntN(3000))
		}
		ents := []string{fmt.Sprint("e", f%7), fmt.Sprint("e", rng.IntN(50))}
		v := hrr.EncodeFact(toks, ents)
		b := hrr.Marshal(v)
		for _, e := range []string{ents[0], ents[1], "e999", toks[0]} {
			exact := hrr.Similarity(v, hrr.Bind(hrr.Atom(e), hrr.RoleEntity()))
			d := math.Abs(hrr.ProbeKey(e).Score(b) - exact)
			sum += d
			worst = max(worst, d)
			n++
		}
		self := hrr.NewKey(v).Score(b)
		worst = max(worst, 1-self)
	}
	t.Logf("quantisation error over %d scores: mean %.2e, max %.2e", n, sum/float64(n), worst)
	if worst > 2e-3 {
		t.Errorf("max quantisation error %v, want < 2e-3", worst)
	}
}

func TestNoiseFloor(t *testing.T) {
	if got, want := hrr.NoiseFloor(1), 1/math.Sqrt(2048); math.Abs(got-want) > 1e-15 {
		t.Errorf("NoiseFloor(1) = %v, want %v", got, want)
	}
	// The floor is the measured spread of unrelated similarities.
	var sq float64
	const n = 2000
	a := hrr.NewKey(hrr.Atom("anchor"))
	for i := range n {
		s := a.Score(hrr.Marshal(hrr.Atom(fmt.Sprint("other", i))))
		sq += s * s
	}
	if sd := math.Sqrt(sq / n); math.Abs(sd-hrr.NoiseFloor(1)) > 0.1*hrr.NoiseFloor(1) {
		t.Errorf("measured sd %v, NoiseFloor(1) %v", sd, hrr.NoiseFloor(1))
	}
}

func TestRelevance(t *testing.T) {
	f := hrr.NoiseFloor(hrr.RecallSigmas)
	for _, tt := range []struct{ sim, want float64 }{
		{-1, 0}, {0, 0}, {f, 0}, {1, 1}, {(1 + f) / 2, 0.5}, {2, 1},
	} {
		if got := hrr.Relevance(tt.sim); math.Abs(got-tt.want) > 1e-12 {
			t.Errorf("Relevance(%v) = %v, want %v", tt.sim, got, tt.want)
		}
	}
	// A query scores its own fact 1 and a fact sharing most terms high.
	toks, ents := []string{"deploy", "nginx", "order"}, []string{"nginx"}
	fact := hrr.Marshal(hrr.EncodeFact(toks, ents))
	if got := hrr.Relevance(hrr.QueryKey(toks, ents).Score(fact)); got < 0.99 {
		t.Errorf("same terms relevance %v, want ~1", got)
	}
	part := hrr.Relevance(hrr.QueryKey([]string{"nginx"}, []string{"nginx"}).Score(fact))
	none := hrr.Relevance(hrr.QueryKey([]string{"weather"}, nil).Score(fact))
	if part < 0.3 || none != 0 {
		t.Errorf("partial query relevance %v (want >= 0.3), unrelated %v (want 0)", part, none)
	}
}

func FuzzUnmarshal(f *testing.F) {
	f.Add(hrr.Marshal(hrr.Atom("a")))
	f.Add([]byte{})
	f.Add([]byte{1})
	f.Add(append([]byte{0}, make([]byte, hrr.Dim)...))
	k := hrr.ProbeKey("a")
	f.Fuzz(func(t *testing.T, b []byte) {
		s := k.Score(b)
		if s < -1-1e-9 || s > 1+1e-9 || math.IsNaN(s) {
			t.Fatalf("score %v out of range", s)
		}
		v, err := hrr.Unmarshal(b)
		if err != nil {
			if s != 0 {
				t.Fatalf("malformed input scored %v", s)
			}
			return
		}
		if got := hrr.Marshal(v); string(got) != string(b) {
			t.Fatal("marshal(unmarshal(b)) != b")
		}
	})
}
