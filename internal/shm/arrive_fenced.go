//go:build !amd64 || race

package shm

import "sync/atomic"

// storePlain32 is atomic.StoreUint32 where a plain store is not known to be
// a release, or the race detector must see it.
func storePlain32(addr *uint32, v uint32) { atomic.StoreUint32(addr, v) }

const canStorePlain = false
