package spm

import "fmt"

// trie maps byte strings to int32 values and enumerates every key that is a
// prefix of a text, shortest first. It plays the role of the Darts
// double-array SentencePiece builds over the vocabulary; the walk order and
// the set of matches are the same, which is all the Viterbi search needs.
//
// Nodes are numbered breadth first, so the children of a node are
// consecutive and sorted by label. A node that leads to a single key stores
// the rest of that key (tail) instead of a chain of one-child nodes, which
// keeps a 250k-piece vocabulary near one node per piece.
//
// A trie is immutable after build and safe for concurrent use.
type trie struct {
	nodes []trieNode
	keys  []string
	vals  []int32
	root  [256]int32 // child of the root for each byte, -1 if none
}

type trieNode struct {
	first int32 // id of the first child
	val   int32 // value of the key ending here, -1 if none
	tail  int32 // index into keys when this node leads to one key only, else -1
	depth int32 // bytes from the root; a tail key matches from keys[tail][depth:]
	num   uint16
	label byte
}

// buildTrie builds a trie over keys with vals[i] the value of keys[i].
// Keys must be non-empty and distinct; the first duplicate is an error.
func buildTrie(keys []string, vals []int32) (*trie, error) {
	t := &trie{keys: keys, vals: vals}
	for i := range t.root {
		t.root[i] = -1
	}
	if len(keys) == 0 {
		return t, nil
	}
	// order holds key indexes; each node owns the range lo[n]:hi[n] of it.
	order := make([]int32, len(keys))
	for i := range order {
		order[i] = int32(i)
	}
	scratch := make([]int32, len(keys))
	t.nodes = make([]trieNode, 1, len(keys)+len(keys)/2)
	t.nodes[0] = trieNode{val: -1, tail: -1}
	lo := make([]int32, 1, cap(t.nodes))
	hi := make([]int32, 1, cap(t.nodes))
	hi[0] = int32(len(keys))

	var count [257]int32
	for n := 0; n < len(t.nodes); n++ {
		depth := int(t.nodes[n].depth)
		r := order[lo[n]:hi[n]]
		if n > 0 && len(r) == 1 {
			k := r[0]
			if len(keys[k]) == depth {
				t.nodes[n].val = vals[k]
			} else {
				t.nodes[n].tail = k
			}
			continue
		}
		// Sort the range by the byte at depth; a key that ends here sorts
		// first. Large ranges use a counting sort, small ones insertion.
		key := func(k int32) int {
			if s := keys[k]; len(s) > depth {
				return int(s[depth]) + 1
			}
			return 0
		}
		if len(r) > 32 {
			count = [257]int32{}
			for _, k := range r {
				count[key(k)]++
			}
			sum := int32(0)
			for b := range count {
				c := count[b]
				count[b] = sum
				sum += c
			}
			tmp := scratch[:len(r)]
			for _, k := range r {
				b := key(k)
				tmp[count[b]] = k
				count[b]++
			}
			copy(r, tmp)
		} else {
			for i := 1; i < len(r); i++ {
				for j := i; j > 0 && key(r[j]) < key(r[j-1]); j-- {
					r[j], r[j-1] = r[j-1], r[j]
				}
			}
		}
		i := 0
		for i < len(r) && key(r[i]) == 0 {
			if len(keys[r[i]]) == 0 {
				return nil, fmt.Errorf("empty piece %d", r[i])
			}
			if i > 0 {
				return nil, fmt.Errorf("piece %q defined twice", keys[r[i]])
			}
			t.nodes[n].val = vals[r[i]]
			i++
		}
		t.nodes[n].first = int32(len(t.nodes))
		for i < len(r) {
			b := key(r[i])
			j := i + 1
			for j < len(r) && key(r[j]) == b {
				j++
			}
			if n == 0 {
				t.root[b-1] = int32(len(t.nodes))
			}
			t.nodes = append(t.nodes, trieNode{val: -1, tail: -1, depth: int32(depth + 1), label: byte(b - 1)})
			base := lo[n]
			lo = append(lo, base+int32(i))
			hi = append(hi, base+int32(j))
			t.nodes[n].num++
			i = j
		}
	}
	return t, nil
}

// child returns the child of node n labelled b, or -1.
func (t *trie) child(n int32, b byte) int32 {
	if n == 0 {
		return t.root[b]
	}
	nd := &t.nodes[n]
	lo, hi := nd.first, nd.first+int32(nd.num)
	for lo < hi {
		m := int32(uint32(lo+hi) >> 1)
		switch l := t.nodes[m].label; {
		case l == b:
			return m
		case l < b:
			lo = m + 1
		default:
			hi = m
		}
	}
	return -1
}

// prefixes calls fn for every key that is a prefix of s, shortest first,
// with the key's length in bytes and its value.
func (t *trie) prefixes(s string, fn func(n int, val int32)) {
	if len(t.nodes) == 0 {
		return
	}
	n := int32(0)
	for i := 0; ; i++ {
		nd := &t.nodes[n]
		if nd.val >= 0 && i > 0 {
			fn(i, nd.val)
		}
		if nd.tail >= 0 {
			k := t.keys[nd.tail]
			rest := k[nd.depth:]
			if len(s)-i >= len(rest) && s[i:i+len(rest)] == rest {
				fn(len(k), t.vals[nd.tail])
			}
			return
		}
		if i == len(s) {
			return
		}
		if n = t.child(n, s[i]); n < 0 {
			return
		}
	}
}

// longest returns the length of the longest key that is a prefix of s, or 0.
func (t *trie) longest(s string) int {
	best := 0
	t.prefixes(s, func(n int, _ int32) { best = n })
	return best
}
