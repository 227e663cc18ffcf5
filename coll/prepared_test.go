package coll

import (
	"errors"
	"testing"
)

// TestCurrentSelectionChanges: the Selection a caller keeps a choice under
// changes when the table or the environment's overrides do, and only then.
func TestCurrentSelectionChanges(t *testing.T) {
	s0 := CurrentSelection()
	if CurrentSelection() != s0 {
		t.Fatal("selection changed with nothing changed")
	}
	orig := Table(OpBcast)
	defer SetTable(OpBcast, orig)
	if err := SetTable(OpBcast, []Rule{{Use: []string{"binomial"}}}); err != nil {
		t.Fatal(err)
	}
	s1 := CurrentSelection()
	if s1 == s0 {
		t.Error("SetTable left the selection as it was")
	}
	t.Cleanup(ReadEnvironment) // after t.Setenv's own cleanup
	t.Setenv(EnvVar(OpBcast), "binomial")
	ReadEnvironment()
	if CurrentSelection() == s1 {
		t.Error("a new GOMPI_COLL_BCAST left the selection as it was")
	}
}

// TestCheckRefAt: CheckRefAt, given a rank and size, returns what Check
// does for that rank: the size, or an error naming the operation and rank.
func TestCheckRefAt(t *testing.T) {
	b8, b16 := make([]byte, 8), make([]byte, 16)
	cases := []struct {
		op   Operation
		n, r int
		a    Args
		ok   bool
	}{
		{OpBcast, 2, 1, Args{Recv: b8, Root: 0}, true},
		{OpBcast, 2, 1, Args{Recv: b8, Root: 2}, false},   // root out of range
		{OpBcast, 2, 2, Args{Recv: b8, Root: 0}, false},   // rank out of range
		{OpGather, 2, 0, Args{Send: b8, Recv: b16}, true}, // root's recv holds both blocks
		{OpGather, 2, 0, Args{Send: b8, Recv: b8}, false},
		{OpAllreduce, 2, 0, Args{Send: b8, Recv: b8}, false}, // no operator
		{OpBarrier, 3, 2, Args{}, true},
	}
	for _, c := range cases {
		got, err := CheckRefAt(c.op, RefOf(c.op), c.n, c.r, &c.a)
		if (err == nil) != c.ok {
			t.Errorf("%s n=%d r=%d: error %v, want ok %v", c.op, c.n, c.r, err, c.ok)
			continue
		}
		if err != nil {
			var e *Error
			if !errors.As(err, &e) || e.Op != c.op || e.Rank != c.r {
				t.Errorf("%s n=%d r=%d: error %#v does not name the call", c.op, c.n, c.r, err)
			}
			continue
		}
		if want, _ := checkAt(int(RefOf(c.op)), c.op, c.n, c.r, &c.a); got != want {
			t.Errorf("%s n=%d r=%d: size %d, want %d", c.op, c.n, c.r, got, want)
		}
	}
}

// TestChecksReadOnlyKeptInputs: the argument checks read only the lengths
// and nil-ness of the buffers, the root, the counts and displacements, the
// segment size and the operator's element size and whether it has a
// function. gompi's kept choice (gompi/collfast.go) skips CheckRef for a
// call whose such inputs are the last call's; a check that read anything
// else (the buffers' addresses or contents, whether they overlap, the
// operator's name) would break that, and this test.
func TestChecksReadOnlyKeptInputs(t *testing.T) {
	sum := func(in, inout []byte) {}
	other := func(in, inout []byte) { inout[0] = in[0] }
	for _, n := range []int{1, 2, 3} {
		for r := range n {
			for _, op := range ops {
				for _, m := range []int{0, 8, 12} {
					for _, inPlace := range []bool{false, true} {
						counts, displs := make([]int, n), make([]int, n)
						for i := range counts {
							counts[i], displs[i] = m, i*m
						}
						recv := make([]byte, n*m)
						var send []byte
						if !inPlace {
							send = make([]byte, m)
							if op == OpAlltoall || op == OpAlltoallv || op == OpAlltoallw || op == OpScatter || op == OpScatterv ||
								op == OpReduceScatterBlock || op == OpReduceScatter {
								send = make([]byte, n*m)
							}
						}
						a := Args{Send: send, Recv: recv, Root: n - 1, Op: Op{Name: "sum[int32]", Commutative: true, ElemSize: 4, Apply: sum},
							SendCounts: counts, SendDispls: displs, RecvCounts: counts, RecvDispls: displs}
						want, werr := checkAt(opIndex(op), op, n, r, &a)
						b := a // the same inputs the kept choice compares, all else changed
						b.Op = Op{Name: "max[float32]", ElemSize: 4, Apply: other}
						b.Recv = make([]byte, len(recv)) // other addresses and contents
						for i := range b.Recv {
							b.Recv[i] = 0xff
						}
						if send != nil {
							b.Send = append([]byte(nil), b.Recv[:min(len(send), len(recv))]...)
							b.Send = append(b.Send, make([]byte, len(send)-len(b.Send))...)
						}
						got, gerr := checkAt(opIndex(op), op, n, r, &b)
						if got != want || (gerr == nil) != (werr == nil) {
							t.Fatalf("%s n=%d r=%d m=%d in place %v: %d, %v with other buffers and operator; %d, %v before", op, n, r, m, inPlace, got, gerr, want, werr)
						}
						if send != nil && len(recv) >= len(send) {
							c := a
							c.Recv = make([]byte, len(recv))
							c.Send = c.Recv[:len(send)] // send inside recv
							got, gerr = checkAt(opIndex(op), op, n, r, &c)
							if got != want || (gerr == nil) != (werr == nil) {
								t.Fatalf("%s n=%d r=%d m=%d: %d, %v with overlapping buffers; %d, %v before", op, n, r, m, got, gerr, want, werr)
							}
						}
					}
				}
			}
		}
	}
}
