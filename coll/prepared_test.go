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
