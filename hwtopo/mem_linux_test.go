package hwtopo

import (
	"errors"
	"os"
	"runtime"
	"testing"
)

// numaOrSkip returns this machine's topology, skipping when the kernel has no
// NUMA or refuses the memory-policy calls (a container's seccomp policy).
func numaOrSkip(t *testing.T) *Topology {
	t.Helper()
	tp, err := Discover()
	if err != nil {
		t.Fatal(err)
	}
	if !tp.NUMA {
		t.Skip("the kernel describes no NUMA nodes here")
	}
	if _, _, err := MemPolicyOf(); errors.Is(err, ErrNotSupported) {
		t.Skipf("memory policy calls refused here: %v", err)
	}
	return tp
}

func TestMemPolicy(t *testing.T) {
	tp := numaOrSkip(t)
	runtime.LockOSThread()
	defer runtime.UnlockOSThread()
	node := tp.Nodes[0].ID
	for _, mode := range []MemPolicy{MemBind, MemPreferred, MemInterleave} {
		if err := SetMemPolicy(mode, CPUSet{node}); err != nil {
			t.Fatalf("SetMemPolicy(%v, %d): %v", mode, node, err)
		}
		got, nodes, err := MemPolicyOf()
		if err != nil || got != mode || !nodes.Equal(CPUSet{node}) {
			t.Errorf("after SetMemPolicy(%v, %d): %v %v %v", mode, node, got, nodes, err)
		}
	}
	if err := SetMemPolicy(MemDefault, nil); err != nil {
		t.Fatal(err)
	}
	if got, nodes, err := MemPolicyOf(); err != nil || got != MemDefault || len(nodes) != 0 {
		t.Errorf("after SetMemPolicy(default): %v %v %v", got, nodes, err)
	}
	// A node that does not exist is a mistake in the request, not a missing
	// feature.
	err := SetMemPolicy(MemBind, CPUSet{1000})
	if err == nil || errors.Is(err, ErrNotSupported) {
		t.Errorf("SetMemPolicy(bind, 1000) = %v: want an error that is not ErrNotSupported", err)
	}
	if err := SetMemPolicy(MemBind, CPUSet{5000}); err == nil {
		t.Error("SetMemPolicy(bind, 5000): no error")
	}
}

func TestAllocOnNode(t *testing.T) {
	tp := numaOrSkip(t)
	const size = 1 << 20
	for _, n := range tp.Nodes {
		if n.MemTotal == 0 {
			continue
		}
		b, err := AllocOnNode(size, n.ID)
		if err != nil {
			t.Fatalf("AllocOnNode(node %d): %v", n.ID, err)
		}
		before, err := PageNodes(b)
		if err != nil {
			t.Fatal(err)
		}
		for i := range b {
			b[i] = byte(i)
		}
		after, err := PageNodes(b)
		if err != nil {
			t.Fatal(err)
		}
		if len(after) != size/os.Getpagesize() || before[0] != -1 {
			t.Errorf("node %d: %d pages, first page before touching on node %d", n.ID, len(after), before[0])
		}
		for i, got := range after {
			if got != n.ID {
				t.Fatalf("node %d: page %d is on node %d", n.ID, i, got)
			}
		}
		// Moving to the same node is allowed and changes nothing.
		if err := BindMemory(b, MemBind, CPUSet{n.ID}, true); err != nil {
			t.Errorf("BindMemory(move): %v", err)
		}
		if err := Free(b); err != nil {
			t.Error(err)
		}
	}
	if len(tp.Nodes) < 2 {
		t.Logf("one NUMA node: placement on a remote node not tested")
	}
	if _, err := AllocOnNode(size, 1000); err == nil || errors.Is(err, ErrNotSupported) {
		t.Errorf("AllocOnNode(node 1000) = %v: want an error that is not ErrNotSupported", err)
	}
	unaligned := make([]byte, 3*os.Getpagesize())[1:]
	if err := BindMemory(unaligned, MemBind, CPUSet{0}, false); err == nil {
		t.Error("BindMemory on an unaligned slice: no error")
	}
	if _, err := PageNodes(unaligned); err == nil {
		t.Error("PageNodes on an unaligned slice: no error")
	}
}
