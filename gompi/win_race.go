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

// raceSync is an acquire and a release of raceMu.
func raceSync() {
	raceMu.Lock()
	raceMu.Unlock() //nolint:staticcheck // an empty critical section is the point
}
