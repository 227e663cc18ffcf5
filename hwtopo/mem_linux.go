package hwtopo

import (
	"errors"
	"fmt"
	"os"
	"unsafe"

	"golang.org/x/sys/unix"
)

// The NUMA memory-policy system calls, which golang.org/x/sys/unix numbers
// but does not wrap: set_mempolicy(2), get_mempolicy(2), mbind(2),
// move_pages(2). Node masks are arrays of unsigned long; the kernel reads
// maxnode-1 bits of them (a historic off-by-one that libnuma also works
// around), so maxnode is one more than the bits passed.

const maskWords = 16 // 1024 nodes, as many as Linux's MAX_NUMNODES allows

type nodeMask [maskWords]uint64

const maxNode = maskWords*64 + 1

func toNodeMask(nodes CPUSet) (nodeMask, error) {
	var m nodeMask
	for _, n := range nodes {
		if n < 0 || n >= maskWords*64 {
			return m, fmt.Errorf("hwtopo: NUMA node %d out of range", n)
		}
		m[n/64] |= 1 << (n % 64)
	}
	return m, nil
}

func (m *nodeMask) set() CPUSet {
	var s CPUSet
	for i := range maskWords * 64 {
		if m[i/64]&(1<<(i%64)) != 0 {
			s = append(s, i)
		}
	}
	return s
}

// refusedMem reports whether an errno from the memory-policy calls means the
// environment does not allow them: ENOSYS (a kernel without NUMA), EPERM (a
// container's seccomp policy without CAP_SYS_NICE).
func refusedMem(err error) bool {
	return errors.Is(err, unix.ENOSYS) || errors.Is(err, unix.EPERM)
}

func memError(op, target string, errno error) error {
	return &BindError{Op: op, Target: target, Err: errno, Unsupported: refusedMem(errno)}
}

func policyTarget(mode MemPolicy, nodes CPUSet) string {
	return fmt.Sprintf("nodes %s (%v)", nodes, mode)
}

// SetMemPolicy sets the memory policy of the calling OS thread for the pages
// it touches first from now on (lock the goroutine to its thread). nodes is
// a set of node IDs; MemDefault and MemLocal take none.
func SetMemPolicy(mode MemPolicy, nodes CPUSet) error {
	m, err := toNodeMask(nodes)
	if err != nil {
		return err
	}
	var mp uintptr
	if len(nodes) > 0 {
		mp = uintptr(unsafe.Pointer(&m))
	}
	_, _, e := unix.Syscall(unix.SYS_SET_MEMPOLICY, uintptr(mode), mp, maxNode)
	if e != 0 {
		return memError("set_mempolicy", policyTarget(mode, nodes), e)
	}
	return nil
}

// MemPolicyOf returns the calling OS thread's memory policy and its nodes.
func MemPolicyOf() (MemPolicy, CPUSet, error) {
	var mode int32
	var m nodeMask
	_, _, e := unix.Syscall6(unix.SYS_GET_MEMPOLICY, uintptr(unsafe.Pointer(&mode)),
		uintptr(unsafe.Pointer(&m)), maxNode, 0, 0, 0)
	if e != 0 {
		return 0, nil, memError("get_mempolicy", "query", e)
	}
	return MemPolicy(mode), m.set(), nil
}

// BindMemory applies a policy to the pages of b, which must start on a page
// boundary (memory from AllocOnNode or unix.Mmap; never a Go-allocated
// slice, whose pages the garbage collector shares). Pages already touched
// stay where they are unless move is set, in which case the kernel migrates
// them (MPOL_MF_MOVE).
func BindMemory(b []byte, mode MemPolicy, nodes CPUSet, move bool) error {
	if len(b) == 0 {
		return nil
	}
	addr := uintptr(unsafe.Pointer(&b[0]))
	if addr%uintptr(os.Getpagesize()) != 0 {
		return fmt.Errorf("hwtopo: BindMemory: address %#x is not page aligned", addr)
	}
	m, err := toNodeMask(nodes)
	if err != nil {
		return err
	}
	var flags uintptr
	if move {
		flags = unix.MPOL_MF_MOVE
	}
	_, _, e := unix.Syscall6(unix.SYS_MBIND, addr, uintptr(len(b)), uintptr(mode),
		uintptr(unsafe.Pointer(&m)), maxNode, flags)
	if e != 0 {
		return memError("mbind", policyTarget(mode, nodes), e)
	}
	return nil
}

// AllocOnNode maps size bytes of anonymous memory bound to NUMA node node:
// pages come from that node when first touched, or the touch fails. Release
// it with Free.
func AllocOnNode(size, node int) ([]byte, error) {
	b, err := unix.Mmap(-1, 0, size, unix.PROT_READ|unix.PROT_WRITE, unix.MAP_PRIVATE|unix.MAP_ANONYMOUS)
	if err != nil {
		return nil, fmt.Errorf("hwtopo: mmap %d bytes: %w", size, err)
	}
	if err := BindMemory(b, MemBind, CPUSet{node}, false); err != nil {
		unix.Munmap(b)
		return nil, err
	}
	return b, nil
}

// Free unmaps memory from AllocOnNode.
func Free(b []byte) error { return unix.Munmap(b) }

// PageNodes returns the NUMA node of each page of b (move_pages(2) in query
// mode), -1 for a page not yet touched. b must start on a page boundary.
func PageNodes(b []byte) ([]int, error) {
	if len(b) == 0 {
		return nil, nil
	}
	ps := os.Getpagesize()
	addr := uintptr(unsafe.Pointer(&b[0]))
	if addr%uintptr(ps) != 0 {
		return nil, fmt.Errorf("hwtopo: PageNodes: address %#x is not page aligned", addr)
	}
	n := (len(b) + ps - 1) / ps
	pages := make([]uintptr, n)
	for i := range pages {
		pages[i] = addr + uintptr(i*ps)
	}
	status := make([]int32, n)
	_, _, e := unix.Syscall6(unix.SYS_MOVE_PAGES, 0, uintptr(n), uintptr(unsafe.Pointer(&pages[0])),
		0, uintptr(unsafe.Pointer(&status[0])), 0)
	if e != 0 {
		return nil, memError("move_pages", "query", e)
	}
	out := make([]int, n)
	for i, s := range status {
		out[i] = int(s)
		if s < 0 {
			out[i] = -1
		}
	}
	return out, nil
}
