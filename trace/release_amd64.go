//go:build amd64 && !race

package trace

// storeRelease stores v at p with release ordering: on amd64 every store
// is one (stores are not reordered with earlier loads or stores), so it is a
// plain MOV, where atomic.StoreUint32 is an XCHG, a locked instruction.
// Being assembly, the call also keeps the compiler from moving memory
// accesses across it.
//
//go:noescape
func storeRelease(p *uint32, v uint32)
