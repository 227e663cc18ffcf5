package hwtopo

import "fmt"

// MemPolicy is a NUMA memory policy mode (the values are Linux's MPOL_*).
type MemPolicy int

// Memory policies.
const (
	MemDefault    MemPolicy = 0 // MPOL_DEFAULT: the process's or system default (local allocation)
	MemPreferred  MemPolicy = 1 // MPOL_PREFERRED: try the one node given, fall back to others
	MemBind       MemPolicy = 2 // MPOL_BIND: only the nodes given
	MemInterleave MemPolicy = 3 // MPOL_INTERLEAVE: page by page round-robin over the nodes given
	MemLocal      MemPolicy = 4 // MPOL_LOCAL: the node of the CPU that touches the page
)

func (p MemPolicy) String() string {
	switch p {
	case MemDefault:
		return "default"
	case MemPreferred:
		return "preferred"
	case MemBind:
		return "bind"
	case MemInterleave:
		return "interleave"
	case MemLocal:
		return "local"
	}
	return fmt.Sprintf("MemPolicy(%d)", int(p))
}
