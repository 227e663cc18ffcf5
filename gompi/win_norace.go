//go:build !race

package gompi

// See win_race.go.
const raceEnabled = false

func raceLock()   {}
func raceUnlock() {}
func raceSync()   {}
