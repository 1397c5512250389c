package spm

import (
	"encoding/binary"
	"fmt"
	"slices"
	"strings"
)

// trie maps byte strings to int32 values and enumerates every key that is a
// prefix of a text, shortest first. It plays the role of the Darts
// double-array SentencePiece builds over the vocabulary; the set of matches
// and their order are the same, which is all the Viterbi search needs.
//
// The children of a node have consecutive ids and are sorted by label. A
// node that leads to a single key stores the rest of that key (its tail)
// instead of a chain of one-child nodes, which keeps a 250k-piece
// vocabulary near 1.4 nodes per piece.
//
// Loading time matters (XLM-R has 250k pieces), and building is bound by
// cache misses, so keys are first radix-sorted on their first 8 bytes and
// copied in sorted order into one arena; the nodes are then cut from
// contiguous sorted ranges without further sorting.
//
// A trie is immutable after build and safe for concurrent use.
type trie struct {
	nodes  []trieNode
	labels []byte   // labels[i] is the byte leading to node i; siblings are adjacent
	arena  string   // keys in sorted order, concatenated
	off    []uint32 // key p (in sorted order) is arena[off[p]:off[p+1]]
	val    []int32  // value of key p
	root   [256]int32
}

type trieNode struct {
	first int32 // id of the first child
	val   int32 // value of the key ending here, -1 if none
	tail  int32 // sorted key this node alone leads to, else -1
	num   uint16
}

// buildTrie builds a trie over the keys for which include (nil: all)
// returns true; the value of keys[i] is i. Those keys must be non-empty and
// distinct; the first violation is an error.
func buildTrie(keys []string, include func(i int) bool) (*trie, error) {
	t := &trie{}
	for i := range t.root {
		t.root[i] = -1
	}
	order, pre := sortKeys(keys, include)
	if len(order) == 0 {
		return t, nil
	}
	size := 0
	for _, k := range order {
		if keys[k] == "" {
			return nil, fmt.Errorf("empty piece %d", k)
		}
		size += len(keys[k])
	}
	// Copy the keys into the arena in sorted order. This is the one pass of
	// random reads; a key of at most 8 bytes comes from pre instead.
	var arena strings.Builder
	arena.Grow(size)
	t.off = make([]uint32, len(order)+1)
	t.val = order // a key's value is its index
	for p, k := range order {
		key := keys[k]
		if l := len(key); l <= 8 {
			var b [8]byte
			binary.BigEndian.PutUint64(b[:], pre[p])
			arena.Write(b[:l])
		} else {
			arena.WriteString(key)
		}
		t.off[p+1] = uint32(arena.Len())
		if p > 0 && pre[p-1] == pre[p] && keys[order[p-1]] == key {
			return nil, fmt.Errorf("piece %q defined twice", key)
		}
	}
	t.arena = arena.String()

	t.nodes = make([]trieNode, 1, len(order)+len(order)/2)
	t.nodes[0] = trieNode{val: -1, tail: -1}
	t.labels = make([]byte, 1, cap(t.nodes))
	// Each pending node owns the sorted range lo:hi of the keys sharing its
	// prefix. Depth-first expansion keeps a subtree's keys in cache;
	// children of a node get consecutive ids because they are created
	// together.
	type task struct{ n, lo, hi, depth int32 }
	stack := []task{{0, 0, int32(len(order)), 0}}
	for len(stack) > 0 {
		top := stack[len(stack)-1]
		stack = stack[:len(stack)-1]
		n, i, end := top.n, top.lo, top.hi
		depth := uint32(top.depth)
		if n > 0 && end-i == 1 {
			if t.off[i+1]-t.off[i] == depth {
				t.nodes[n].val = t.val[i]
			} else {
				t.nodes[n].tail = i
			}
			continue
		}
		// Sorted order puts the key equal to the prefix (if any) first.
		if t.off[i+1]-t.off[i] == depth {
			t.nodes[n].val = t.val[i]
			i++
		}
		t.nodes[n].first = int32(len(t.nodes))
		mark := len(stack)
		for i < end {
			b := t.arena[t.off[i]+depth]
			j := i + 1
			for j < end && t.arena[t.off[j]+depth] == b {
				j++
			}
			if n == 0 {
				t.root[b] = int32(len(t.nodes))
			}
			t.nodes = append(t.nodes, trieNode{val: -1, tail: -1})
			t.labels = append(t.labels, b)
			stack = append(stack, task{int32(len(t.nodes) - 1), i, j, int32(depth + 1)})
			t.nodes[n].num++
			i = j
		}
		slices.Reverse(stack[mark:]) // first child on top
	}
	return t, nil
}

// sortKeys returns the indexes of the included keys (nil: all) in
// lexicographic order, and for
// each position the key's first 8 bytes as a big-endian number (zero
// padded). An MSD radix sort orders those numbers, then runs that share
// them are sorted on the next 8 bytes, and so on.
func sortKeys(keys []string, include func(i int) bool) (order []int32, pre []uint64) {
	pre = make([]uint64, 0, len(keys))
	order = make([]int32, 0, len(keys))
	for i, k := range keys {
		if include == nil || include(i) {
			pre = append(pre, prefix8(k, 0))
			order = append(order, int32(i))
		}
	}
	n := len(order)
	tmpPre := make([]uint64, n)
	radixSort(pre, order, tmpPre, make([]int32, n), 56)
	rs := runSorter{keys: keys}
	rs.sort(order, pre, 8, make([]uint64, n), tmpPre)
	return order, pre
}

// radixSort sorts pre (carrying order along) by the bits below shift+8,
// one byte per level, most significant first. tmpPre and tmpOrder are
// scratch of the same length.
func radixSort(pre []uint64, order []int32, tmpPre []uint64, tmpOrder []int32, shift uint) {
	for {
		if len(pre) <= 32 {
			for i := 1; i < len(pre); i++ {
				for j := i; j > 0 && pre[j] < pre[j-1]; j-- {
					pre[j], pre[j-1] = pre[j-1], pre[j]
					order[j], order[j-1] = order[j-1], order[j]
				}
			}
			return
		}
		var count [256]int32
		for _, v := range pre {
			count[byte(v>>shift)]++
		}
		if count[byte(pre[0]>>shift)] == int32(len(pre)) {
			// One bucket: nothing to move at this byte.
			if shift == 0 {
				return
			}
			shift -= 8
			continue
		}
		var start [256]int32
		sum := int32(0)
		for b, c := range count {
			start[b] = sum
			sum += c
		}
		next := start
		for i, v := range pre {
			b := byte(v >> shift)
			tmpPre[next[b]] = v
			tmpOrder[next[b]] = order[i]
			next[b]++
		}
		copy(pre, tmpPre[:len(pre)])
		copy(order, tmpOrder[:len(order)])
		if shift == 0 {
			return
		}
		for b, c := range count {
			if c > 1 {
				lo, hi := start[b], start[b]+c
				radixSort(pre[lo:hi], order[lo:hi], tmpPre[lo:hi], tmpOrder[lo:hi], shift-8)
			}
		}
		return
	}
}

// runSorter orders runs of keys that agree on their first bytes.
type runSorter struct {
	keys     []string
	tmpOrder []int32 // scratch for radixSort
}

// sort orders each run of order whose keys agree on pre (bytes off-8:off)
// by bytes off:off+8, recursing on runs that still agree. It writes the
// new prefixes to out; spare is scratch of the same length. A level only
// overwrites regions of spare its caller has finished reading.
func (rs *runSorter) sort(order []int32, pre []uint64, off int, out, spare []uint64) {
	keys := rs.keys
	for i := 0; i < len(order); {
		j := i + 1
		for j < len(order) && pre[j] == pre[i] {
			j++
		}
		if j-i < 2 {
			i = j
			continue
		}
		run := order[i:j]
		longer := false
		for _, k := range run {
			longer = longer || len(keys[k]) > off
		}
		if !longer {
			// Equal prefixes and nothing beyond: only NUL padding against
			// real NUL bytes (or duplicates) can differ; compare in full.
			slices.SortFunc(run, func(a, b int32) int { return strings.Compare(keys[a], keys[b]) })
			i = j
			continue
		}
		for x, k := range run {
			out[i+x] = prefix8(keys[k], off)
		}
		if len(rs.tmpOrder) < len(run) {
			rs.tmpOrder = make([]int32, len(order))
		}
		radixSort(out[i:j], run, spare[i:j], rs.tmpOrder[:len(run)], 56)
		rs.sort(run, out[i:j], off+8, spare[i:j], out[i:j])
		i = j
	}
}

// prefix8 returns bytes off:off+8 of k as a big-endian number, zero padded.
func prefix8(k string, off int) uint64 {
	if off+8 <= len(k) {
		b := k[off : off+8]
		return uint64(b[0])<<56 | uint64(b[1])<<48 | uint64(b[2])<<40 | uint64(b[3])<<32 |
			uint64(b[4])<<24 | uint64(b[5])<<16 | uint64(b[6])<<8 | uint64(b[7])
	}
	var v uint64
	for j := off; j < off+8; j++ {
		v <<= 8
		if j < len(k) {
			v |= uint64(k[j])
		}
	}
	return v
}

// child returns the child of node n labelled b, or -1.
func (t *trie) child(n int32, b byte) int32 {
	if n == 0 {
		return t.root[b]
	}
	nd := &t.nodes[n]
	first := nd.first
	labels := t.labels[first : first+int32(nd.num)]
	if len(labels) <= 8 {
		for i, l := range labels {
			if l == b {
				return first + int32(i)
			}
		}
		return -1
	}
	lo, hi := 0, len(labels)
	for lo < hi {
		m := int(uint(lo+hi) >> 1)
		switch l := labels[m]; {
		case l == b:
			return first + int32(m)
		case l < b:
			lo = m + 1
		default:
			hi = m
		}
	}
	return -1
}

// tailOf returns the rest, after the first depth bytes, of the single key
// below nd, which is depth bytes from the root, and its value.
func (t *trie) tailOf(nd *trieNode, depth int) (string, int32) {
	p := nd.tail
	return t.arena[t.off[p]+uint32(depth) : t.off[p+1]], t.val[p]
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
			rest, v := t.tailOf(nd, i)
			if strings.HasPrefix(s[i:], rest) {
				fn(i+len(rest), v)
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
