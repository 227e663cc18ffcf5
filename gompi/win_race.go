//go:build race

package gompi

import "sync"

// Under the race detector, ranks of Run are goroutines of one process, and
// a window's service goroutine reads and writes memory that another
// goroutine of its rank wrote. The real order goes through the engine's
// shared segment, which the detector does not see, so the window makes it
// visible: the service touches window memory only under raceMu, through
// its own buffers, and the synchronization calls take raceMu too.
const raceEnabled = true

var raceMu sync.Mutex

func raceLock()   { raceMu.Lock() }
func raceUnlock() { raceMu.Unlock() }

// raceSync is an acquire and a release of raceMu. Blocking collectives
// call it on entry and on return too: a rank that leaves a collective whose
// result depends on another rank's call (a Barrier, the all- forms, a
// Bcast's readers) leaves after that rank entered it, so its acquire
// follows that rank's release. What a window's service wrote into this
// rank's memory before another rank's epoch closed (after which that rank
// entered a Barrier) is then ordered before this rank's reads after the
// Barrier, as it is in fact.
func raceSync() {
	raceMu.Lock()
	raceMu.Unlock() //nolint:staticcheck // an empty critical section is the point
}
