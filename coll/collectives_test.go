package coll_test

import (
	"bytes"
	"fmt"
	"os"
	"sync/atomic"
	"testing"

	"github.com/gompi/gompi/coll"
	"github.com/gompi/gompi/coll/sim"
)

// The collectives are checked against their serial definitions: every
// operation × algorithm × element kind × size × rank count 1..17 × root (0,
// the middle one, the last) × in place or not, on simulated ranks with
// synchronous sends, and for size 7 on 5 and 8 ranks also with eager ones.
//
// Data movement (everything but reductions) sees only bytes, so the element
// type cannot matter to it: those operations run with byte blocks of odd and
// even lengths instead of element kinds. Reductions run with every kind of
// `kinds`: 1-, 4-, 8- and 16-byte elements, a MinLoc pair and a
// non-commutative matrix product (which algorithms that cannot keep rank
// order refuse; TestRefuseNonCommutative checks that).
//
// The big size (1 MiB + 3 bytes, or that many bytes rounded up to whole
// elements) runs on 3 and 8 ranks only: the smallest communicator with a
// folded rank and a power of two, which together take every code path of the
// recursive-doubling family; on all 17 rank counts it would move gigabytes
// for nothing the small sizes do not already cover.

//
// TestCollectives runs the big size with the first element kind only,
// which takes the same code paths of every algorithm: the other kinds differ
// in the operator, which the small sizes check on every rank count. The big
// size with the other kinds is TestCollectivesLong, run only with
// GOMPI_TEST_LONG=1 (.ci/run does): go test ./... stays under a minute on
// two cores, and CI keeps the whole matrix.

var (
	smallSizes = []int{0, 1, 7, 4096}
	bigSize    = 1<<20 + 3
	bigRanks   = []int{3, 8}
)

// tcase is one collective call, made on every rank.
type tcase struct {
	op      coll.Operation
	alg     string
	n       int
	size    int // bytes per block; elements for reductions
	root    int
	inPlace bool
	eager   bool // sends complete at once instead of when matched
	k       kind
	pre     [][]byte // the serial reference of reductions, see prefixes
}

func (tc *tcase) String() string {
	s := fmt.Sprintf("%s/%s n=%d size=%d", tc.op, tc.alg, tc.n, tc.size)
	if tc.op.Rooted() {
		s += fmt.Sprintf(" root=%d", tc.root)
	}
	if tc.op.Reduction() {
		s += " " + tc.k.name
	}
	if tc.inPlace {
		s += " in-place"
	}
	if tc.eager {
		s += " eager"
	}
	return s
}

// vcount is rank i's block of v operations: 0.5, 1 or 1.5 times size.
func vcount(size, i int) int { return size * (1 + i%3) / 2 }

// vcount2 is the block from rank i to rank j of Alltoallv; symmetric in place
// (MPI then sends with the receive counts).
func vcount2(size, i, j int, symmetric bool) int {
	if symmetric {
		return size * (1 + (i+j)%3) / 2
	}
	return size * (1 + (i+2*j)%3) / 2
}

// layoutFor gives rank r's layout of blocks: scattered (reverse order, gaps)
// on even ranks, packed on odd ones; a rank's layout is its own business.
func layoutFor(r int, counts []int) ([]byte, []int, bool) {
	if r%2 == 1 {
		buf, displs := packed(counts)
		copy(buf, garbage(len(buf)))
		return buf, displs, true
	}
	buf, displs := scattered(counts)
	return buf, displs, false
}

// rankCall builds rank r's arguments and the check of its results.
func (tc *tcase) rankCall(r int) (*coll.Args, func() error) {
	n, m, root := tc.n, tc.size, tc.root
	a := &coll.Args{Root: root, Op: tc.k.op}
	var checks []func() error
	keep := func(what string, b []byte) { // b must be unchanged
		if b != nil {
			orig := bytes.Clone(b)
			checks = append(checks, func() error { return expectEqual(what+" (must not change)", b, orig) })
		}
	}
	want := func(what string, got, exp []byte) {
		checks = append(checks, func() error { return expectEqual(what, got, exp) })
	}
	blocks := func(buf []byte, counts, displs []int, from func(i int) []byte, packedLayout bool) {
		for i := range counts {
			want(fmt.Sprintf("block of rank %d", i), buf[displs[i]:][:counts[i]], from(i))
		}
		checks = append(checks, func() error { return checkGaps(buf, counts, displs, packedLayout) })
	}

	switch tc.op {
	case coll.OpBcast:
		a.Recv = garbage(m)
		if r == root {
			a.Recv = blk(root, 0, m)
		}
		want("buf", a.Recv, blk(root, 0, m))

	case coll.OpReduce, coll.OpAllreduce, coll.OpScan, coll.OpExscan:
		x := tc.k.gen(r, m)
		a.Send, a.Recv = x, garbage(len(x))
		if tc.op == coll.OpReduce && r != root {
			a.Recv = nil
		}
		if tc.inPlace && a.Recv != nil {
			a.Send, a.Recv = nil, bytes.Clone(x)
		}
		keep("send", a.Send)
		switch {
		case tc.op == coll.OpExscan && r == 0:
			keep("recv of rank 0", a.Recv)
		case tc.op == coll.OpExscan:
			want("recv", a.Recv, tc.pre[r-1])
		case tc.op == coll.OpScan:
			want("recv", a.Recv, tc.pre[r])
		case a.Recv != nil:
			want("recv", a.Recv, tc.pre[n-1])
		}

	case coll.OpGather, coll.OpAllgather:
		a.Send = blk(r, 0, m)
		if tc.op == coll.OpAllgather || r == root {
			a.Recv = garbage(n * m)
			if tc.inPlace {
				copy(a.Recv[r*m:], a.Send)
				a.Send = nil
			}
			want("recv", a.Recv, bytes.Join(func() [][]byte {
				bs := make([][]byte, n)
				for i := range bs {
					bs[i] = blk(i, 0, m)
				}
				return bs
			}(), nil))
		}
		keep("send", a.Send)

	case coll.OpGatherv, coll.OpAllgatherv:
		counts := make([]int, n)
		for i := range counts {
			counts[i] = vcount(m, i)
		}
		a.Send = blk(r, 0, counts[r])
		if tc.op == coll.OpAllgatherv || r == root {
			buf, displs, isPacked := layoutFor(r, counts)
			a.Recv, a.RecvCounts, a.RecvDispls = buf, counts, displs
			if tc.inPlace {
				copy(buf[displs[r]:], a.Send)
				a.Send = nil
			}
			blocks(buf, counts, displs, func(i int) []byte { return blk(i, 0, counts[i]) }, isPacked)
		}
		keep("send", a.Send)

	case coll.OpScatter:
		a.Recv = garbage(m)
		if r == root {
			a.Send = bytes.Join(func() [][]byte {
				bs := make([][]byte, n)
				for i := range bs {
					bs[i] = blk(root, i, m)
				}
				return bs
			}(), nil)
			if tc.inPlace {
				a.Recv = nil
			}
		}
		keep("send", a.Send)
		if a.Recv != nil {
			want("recv", a.Recv, blk(root, r, m))
		}

	case coll.OpScatterv:
		counts := make([]int, n)
		for i := range counts {
			counts[i] = vcount(m, i)
		}
		a.Recv = garbage(counts[r])
		if r == root {
			buf, displs := scattered(counts)
			for i := range n {
				copy(buf[displs[i]:], blk(root, i, counts[i]))
			}
			a.Send, a.SendCounts, a.SendDispls = buf, counts, displs
			if tc.inPlace {
				a.Recv = nil
			}
		}
		keep("send", a.Send)
		if a.Recv != nil {
			want("recv", a.Recv, blk(root, r, counts[r]))
		}

	case coll.OpAlltoall:
		parts := make([][]byte, n)
		for j := range parts {
			parts[j] = blk(r, j, m)
		}
		a.Send, a.Recv = bytes.Join(parts, nil), garbage(n*m)
		if tc.inPlace {
			a.Send, a.Recv = nil, a.Send
		}
		keep("send", a.Send)
		for i := range n {
			want(fmt.Sprintf("block from rank %d", i), a.Recv[i*m:][:m], blk(i, r, m))
		}

	case coll.OpAlltoallv, coll.OpAlltoallw:
		scounts, rcounts := make([]int, n), make([]int, n)
		for j := range n {
			scounts[j], rcounts[j] = vcount2(m, r, j, tc.inPlace), vcount2(m, j, r, tc.inPlace)
		}
		sbuf, sdispls := scattered(scounts)
		for j := range n {
			copy(sbuf[sdispls[j]:], blk(r, j, scounts[j]))
		}
		rbuf, rdispls, isPacked := layoutFor(r, rcounts)
		a.Send, a.SendCounts, a.SendDispls = sbuf, scounts, sdispls
		a.Recv, a.RecvCounts, a.RecvDispls = rbuf, rcounts, rdispls
		if tc.inPlace {
			for j := range n {
				copy(rbuf[rdispls[j]:], blk(r, j, rcounts[j]))
			}
			a.Send, a.SendCounts, a.SendDispls = nil, nil, nil
		}
		keep("send", a.Send)
		blocks(rbuf, rcounts, rdispls, func(i int) []byte { return blk(i, r, rcounts[i]) }, isPacked)

	case coll.OpReduceScatter, coll.OpReduceScatterBlock:
		counts := make([]int, n)
		for i := range counts {
			counts[i] = m * tc.k.esize
			if tc.op == coll.OpReduceScatter {
				counts[i] = vcount(m, i) * tc.k.esize
			}
		}
		total, off := 0, 0
		for i, c := range counts {
			if i < r {
				off += c
			}
			total += c
		}
		x := tc.k.gen(r, total/tc.k.esize)
		a.Send, a.Recv = x, garbage(counts[r])
		if tc.op == coll.OpReduceScatter {
			a.RecvCounts = counts
		}
		if tc.inPlace {
			a.Send, a.Recv = nil, bytes.Clone(x)
		}
		keep("send", a.Send)
		want("result", a.Recv[:counts[r]], tc.pre[n-1][off:off+counts[r]])
	}
	return a, func() error {
		for _, c := range checks {
			if err := c(); err != nil {
				return err
			}
		}
		return nil
	}
}

// run makes the call on all ranks and checks every rank's results.
func (tc *tcase) run() error {
	w := sim.New(tc.n, sim.Options{Eager: tc.eager, Timeout: timeout})
	return firstErr(w.Run(func(c coll.Comm) error {
		a, check := tc.rankCall(c.Rank())
		// 1 KiB segments make the pipelined chain cut 4096 bytes into 5
		// segments, the last one empty, and the big size into 1025.
		if err := coll.Call(c, tc.op, a, coll.WithAlgorithm(tc.alg), coll.WithSegmentSize(1024)); err != nil {
			return err
		}
		return check()
	}))
}

// inPlaceOK reports whether op has an in-place form.
func inPlaceOK(op coll.Operation) bool { return op != coll.OpBarrier && op != coll.OpBcast }

// cases enumerates the calls that test one algorithm: those of
// TestCollectives, or (long) the rest, those of TestCollectivesLong.
func cases(op coll.Operation, alg coll.Algorithm, long bool) []*tcase {
	var out []*tcase
	ks := []kind{{name: "bytes", esize: 1}}
	if op.Reduction() {
		ks = nil
		for _, k := range kinds {
			if k.op.Commutative || !alg.Commutative {
				ks = append(ks, k)
			}
		}
	}
	add := func(n, size int, k kind) {
		roots := []int{0}
		if op.Rooted() {
			roots = []int{0, n / 2, n - 1}
		}
		var pre [][]byte
		if op.Reduction() {
			total := size * n // ReduceScatter(Block): n blocks; vcount ≤ 1.5 size
			switch op {
			case coll.OpReduceScatter:
				total = 0
				for i := range n {
					total += vcount(size, i)
				}
			case coll.OpReduce, coll.OpAllreduce, coll.OpScan, coll.OpExscan:
				total = size
			}
			pre = prefixes(k, n, total)
		}
		seen := map[int]bool{}
		for _, root := range roots {
			if seen[root] {
				continue
			}
			seen[root] = true
			for _, inPlace := range []bool{false, true} {
				if inPlace && !inPlaceOK(op) {
					continue
				}
				out = append(out, &tcase{op: op, alg: alg.Name, n: n, size: size, root: root, inPlace: inPlace, k: k, pre: pre})
			}
		}
	}
	for i, k := range ks {
		esize := max(k.esize, 1)
		if !long {
			for n := 1; n <= 17; n++ {
				for _, s := range smallSizes {
					if s > 1 && s >= esize {
						s /= esize
					}
					add(n, s, k)
				}
			}
		}
		if long == (i > 0) {
			for _, n := range bigRanks {
				add(n, (bigSize+esize-1)/esize, k)
			}
		}
	}
	for _, tc := range out { // and under an eager transport, on a few
		if tc.size == 7 && (tc.n == 5 || tc.n == 8) {
			e := *tc
			e.eager = true
			out = append(out, &e)
		}
	}
	return out
}

func TestCollectives(t *testing.T) { testCollectives(t, false) }

// TestCollectivesLong is the rest of the matrix (see smallSizes).
func TestCollectivesLong(t *testing.T) {
	if os.Getenv("GOMPI_TEST_LONG") == "" {
		t.Skip("the big size with every element kind: GOMPI_TEST_LONG=1 runs it (CI does)")
	}
	testCollectives(t, true)
}

func testCollectives(t *testing.T, long bool) {
	eachAlgorithm(t, func(t *testing.T, alg coll.Algorithm) {
		failures := 0
		for _, tc := range cases(alg.Op, alg, long) {
			if err := tc.run(); err != nil {
				t.Errorf("%v: %v", tc, err)
				if failures++; failures == 3 {
					t.Fatal("giving up on this algorithm")
				}
			}
		}
	})
}

// TestBarrier checks the barrier's one promise: no rank leaves before all
// have arrived.
func TestBarrier(t *testing.T) {
	for _, alg := range builtinsOf(coll.OpBarrier) {
		t.Run(alg.Name, func(t *testing.T) {
			for n := 1; n <= 17; n++ {
				var arrived atomic.Int32
				err := firstErr(runRanks(n, func(c coll.Comm) error {
					arrived.Add(1)
					if err := coll.Barrier(c, coll.WithAlgorithm(alg.Name)); err != nil {
						return err
					}
					if got := arrived.Load(); got != int32(n) {
						return fmt.Errorf("left the barrier when %d of %d ranks had arrived", got, n)
					}
					return nil
				}))
				if err != nil {
					t.Errorf("n=%d: %v", n, err)
				}
			}
		})
	}
}
