//go:build !amd64 || race

package trace

import "sync/atomic"

// storeRelease stores v at p with release ordering: an atomic store here
// (other processors, and the race detector, which must see the release).
func storeRelease(p *uint32, v uint32) { atomic.StoreUint32(p, v) }
