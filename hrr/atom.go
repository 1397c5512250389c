package hrr

import (
	"crypto/sha256"
	"encoding/binary"
	"math"
	"sync"
)

// Dim is the number of phases in every vector.
const Dim = 1024

// Reserved tokens whose atoms are the two roles. A content token or entity
// spelled exactly like one of them would collide with the role; the leading
// NUL byte makes that impossible for text that came out of a tokenizer.
const (
	// RoleContentToken is the reserved string whose atom is ROLE_CONTENT.
	RoleContentToken = "\x00holomem/hrr/role/content"
	// RoleEntityToken is the reserved string whose atom is ROLE_ENTITY.
	RoleEntityToken = "\x00holomem/hrr/role/entity"
)

// AtomCacheSize is the most atoms the process-wide atom cache holds. An atom
// is cached as Dim 16-bit phases (2 KiB), so a full cache costs about 8 MiB.
const AtomCacheSize = 4096

// maxCachedToken is the longest token the cache keeps: a longer one is
// derived every time, so a pathological token cannot pin megabytes.
const maxCachedToken = 256

// phaseBits is the resolution of an atom's phases: 16 bits, so one SHA-256
// digest yields 16 phases and an atom needs Dim/16 = 64 digests. 8 bits would
// halve the hashing, but 16-bit atoms let bind/unbind run as exact integer
// arithmetic mod 2^16 with a negligible rounding error (2π/65536).
const phaseBits = 16

// phasesPerDigest is how many phases one digest yields.
const phasesPerDigest = sha256.Size / (phaseBits / 8)

// phase16 is a vector of Dim phases in units of 2π/65536. Addition and
// subtraction wrap mod 2^16, which is exactly addition mod 2π.
type phase16 [Dim]uint16

// deriveAtom computes a token's phases: phase 16i+j is the big-endian uint16
// at bytes 2j, 2j+1 of SHA-256(uint32be(i) || token).
func deriveAtom(token string) *phase16 {
	buf := make([]byte, 4+len(token))
	copy(buf[4:], token)
	var a phase16
	for i := range Dim / phasesPerDigest {
		binary.BigEndian.PutUint32(buf, uint32(i))
		d := sha256.Sum256(buf)
		for j := range phasesPerDigest {
			a[i*phasesPerDigest+j] = binary.BigEndian.Uint16(d[2*j:])
		}
	}
	return &a
}

// atomCache is a bounded two-generation cache: lookups hit the current
// generation, then the previous one (promoting the atom); when the current
// generation is full it becomes the previous one and the oldest is dropped.
// This approximates LRU with one map insert per miss and no list. Safe for
// concurrent use.
type atomCache struct {
	mu struct {
		sync.Mutex
		cur, old map[string]*phase16
	}
	gen int // entries per generation
}

func newAtomCache(size int) *atomCache {
	c := &atomCache{gen: max(size/2, 1)}
	// The first generation grows as it fills: sized up front it cost a
	// process that encodes one query (the prompt hook) ~30 page faults.
	c.mu.cur = make(map[string]*phase16)
	return c
}

// get returns the token's atom. The result is shared: never modify it.
func (c *atomCache) get(token string) *phase16 {
	if len(token) > maxCachedToken {
		return deriveAtom(token)
	}
	c.mu.Lock()
	if a, ok := c.mu.cur[token]; ok {
		c.mu.Unlock()
		return a
	}
	if a, ok := c.mu.old[token]; ok {
		c.putLocked(token, a)
		c.mu.Unlock()
		return a
	}
	c.mu.Unlock()

	// Hash outside the lock: two goroutines may derive the same atom at
	// once, which is harmless because both get identical phases.
	a := deriveAtom(token)
	c.mu.Lock()
	c.putLocked(token, a)
	c.mu.Unlock()
	return a
}

// putLocked stores an atom in the current generation. c.mu must be held.
func (c *atomCache) putLocked(token string, a *phase16) {
	if len(c.mu.cur) >= c.gen {
		c.mu.old = c.mu.cur
		c.mu.cur = make(map[string]*phase16, c.gen)
	}
	c.mu.cur[token] = a
}

// len reports how many atoms are cached.
func (c *atomCache) len() int {
	c.mu.Lock()
	defer c.mu.Unlock()
	return len(c.mu.cur) + len(c.mu.old)
}

// atoms is the process-wide atom cache. It holds only derived, immutable
// data, so sharing it is safe and is not configuration.
var atoms = newAtomCache(AtomCacheSize)

// The role atoms, used by every encode, are listed in roletable.go
// (generated, and checked against deriveAtom by TestRoleTable) rather than
// derived at start: 128 SHA-256 digests and 4 KiB in every process, most of
// which encode nothing.

// radPerUnit16 converts a 16-bit phase to radians.
const radPerUnit16 = 2 * math.Pi / (1 << phaseBits)

// vector converts 16-bit phases to a Vector in radians.
func (p *phase16) vector() Vector {
	v := make(Vector, Dim)
	for i, x := range p {
		v[i] = float64(x) * radPerUnit16
	}
	return v
}

// Atom returns the vector of a token: Dim phases derived from SHA-256 of the
// token, so the same token gives the same atom in every process and version.
// Distinct tokens give atoms that are nearly orthogonal (similarity about
// 0 ± 1/sqrt(2·Dim)). Atoms are cached; Atom is safe for concurrent use.
func Atom(token string) Vector {
	return atoms.get(token).vector()
}

// RoleContent returns ROLE_CONTENT, the atom that content tokens are bound to.
func RoleContent() Vector { return roleContent.vector() }

// RoleEntity returns ROLE_ENTITY, the atom that entities are bound to.
func RoleEntity() Vector { return roleEntity.vector() }
