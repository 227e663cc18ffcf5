package gompi

// Hooks for the external tests of the single-copy forms with per-rank
// counts (shmcoll_cmav_test.go): refuse reads and writes as
// shmcoll_cma_test.go does, and tell whether single copy is on.

// SetCMARefuse sets the refusal mode of the test's readRemote and
// writeRemote (0 never, 1 always, 2 every other one, 3 the first only).
func SetCMARefuse(mode int32) {
	refuseCount.Store(0)
	refuseMode.Store(mode)
}

// CMAOn reports whether c's ranks agreed on single copy.
func CMAOn(c *Comm) bool { return c.cma.Load() == cmaOn }
