//go:build !race

package shm

// storePlain32 stores v at *addr with a plain MOV. On amd64 every store is a
// release (stores are seen in program order, and after the loads before
// them), so the data a rank wrote before arriving are visible to a peer that
// sees the new word, as with atomic.StoreUint32; what the MOV lacks is the
// XCHG's full fence (a later load may be served before the store is
// visible), which the two-rank arrival makes up for on the sleeper's side
// (see plainArrive). Being a call into assembly, it is also a compiler
// barrier: the stores before it are not moved past it.
//
//go:noescape
func storePlain32(addr *uint32, v uint32)

// canStorePlain: storePlain32 is a plain store (not under the race
// detector, which would not see it).
const canStorePlain = true
