//go:build amd64 && !race

package shm

// StoreRelease32 stores v at p with release ordering: on amd64 every store
// is one (stores are not reordered with earlier loads or stores), so it is
// a plain MOV, where atomic.StoreUint32 is an XCHG, a locked instruction
// that waits for every store before it (a push root's stores to several
// readers' lines would wait for each line in turn). Being assembly, the
// call also keeps the compiler from moving memory accesses across it. It
// is no fence: a store followed by a load of another word (a sleeper count)
// needs one between them.
//
//go:noescape
func StoreRelease32(p *uint32, v uint32)

// StoreRelease64 is StoreRelease32 for a 64-bit word.
//
//go:noescape
func StoreRelease64(p *uint64, v uint64)

// canStorePlain: StoreRelease32 is a plain store (not under the race
// detector, which would not see it), so the two-rank arrival may use it
// with the fence moved to the sleeper (see plainArrive).
const canStorePlain = true
