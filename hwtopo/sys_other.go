//go:build !linux

package hwtopo

import "errors"

// Binding threads, processes and memory is implemented for Linux only;
// elsewhere every call says so.

func notSupported(op string) error {
	return &BindError{Op: op, Target: "anything", Err: errors.New("implemented for Linux only"), Unsupported: true}
}

func BindThread(cpus CPUSet) error                    { return notSupported("sched_setaffinity") }
func ThreadAffinity() (CPUSet, error)                 { return nil, notSupported("sched_getaffinity") }
func Affinity(tid int) (CPUSet, error)                { return nil, notSupported("sched_getaffinity") }
func BindProcess(pid int, cpus CPUSet) error          { return notSupported("sched_setaffinity") }
func SetMemPolicy(mode MemPolicy, nodes CPUSet) error { return notSupported("set_mempolicy") }
func MemPolicyOf() (MemPolicy, CPUSet, error)         { return 0, nil, notSupported("get_mempolicy") }
func BindMemory(b []byte, mode MemPolicy, nodes CPUSet, move bool) error {
	return notSupported("mbind")
}
func AllocOnNode(size, node int) ([]byte, error) { return nil, notSupported("mbind") }
func Free(b []byte) error                        { return notSupported("munmap") }
func PageNodes(b []byte) ([]int, error)          { return nil, notSupported("move_pages") }
