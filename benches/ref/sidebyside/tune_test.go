package main

import (
	"testing"

	"github.com/gompi/gompi/coll"
)

// TestTableChoice: the tune table's "table picks" column is the runtime's
// table (its shm rules included), with the v and w forms' size as 0.
func TestTableChoice(t *testing.T) {
	for _, tt := range []struct {
		op      coll.Operation
		n, size int
	}{
		{coll.OpBarrier, 2, 0},
		{coll.OpAllgatherv, 2, 8},
		{coll.OpAllgatherv, 8, 1 << 20},
		{coll.OpAlltoallv, 4, 1 << 20},
		{coll.OpBcast, 4, 8},
	} {
		bytes := tt.size
		if tt.op == coll.OpAlltoallv {
			bytes = 0
		}
		if got, want := tableChoice(tt.op, tt.n, tt.size), coll.Select(tt.op, tt.n, bytes); got != want || got == "" {
			t.Errorf("tableChoice(%s, %d, %d) = %q, want %q", tt.op, tt.n, tt.size, got, want)
		}
	}
	if got := tableChoice(coll.OpBarrier, 2, 0); got != "shm" {
		t.Errorf("Barrier picks %q: the runtime's shm rules are not in the table", got)
	}
}
