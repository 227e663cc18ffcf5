//go:build !amd64 || race

package shm

import "sync/atomic"

// StoreRelease32 stores v at p with release ordering: an atomic store here
// (see release_amd64.go).
func StoreRelease32(p *uint32, v uint32) { atomic.StoreUint32(p, v) }

// StoreRelease64 stores v at p with release ordering: an atomic store here.
func StoreRelease64(p *uint64, v uint64) { atomic.StoreUint64(p, v) }

// canStorePlain: StoreRelease32 is an atomic store here.
const canStorePlain = false
