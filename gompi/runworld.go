package gompi

import (
	"bytes"
	"runtime"
	"strconv"
	"sync"
	"sync/atomic"
)

// Under Run, each rank is a goroutine and the process has no single world:
// World, Init, Initialized and Finalize called from a rank's goroutine (the
// one Run started for it) act on that rank, so that a program written for
// golaunch (Init, World, ..., Finalize) runs unchanged as fn of Run.
// Go has no goroutine-local storage; the goroutine is told by its id, read
// from runtime.Stack, which costs about a microsecond: what World costs only
// under Run and outside an Init'ed process.

// runRanks maps the goroutine id of each rank running under Run to its
// world communicator; running counts them, so that a process without Run
// never looks.
var (
	runRanks sync.Map // uint64 → *Comm
	running  atomic.Int32
)

// enterRun records the calling goroutine as rank world's; leave undoes it.
func enterRun(world *Comm) (leave func()) {
	id := goroutineID()
	running.Add(1)
	runRanks.Store(id, world)
	return func() {
		runRanks.Delete(id)
		running.Add(-1)
	}
}

// runWorld returns the world of the rank whose goroutine calls it under Run,
// or nil.
func runWorld() *Comm {
	if running.Load() == 0 {
		return nil
	}
	if v, ok := runRanks.Load(goroutineID()); ok {
		return v.(*Comm)
	}
	return nil
}

// goroutineID parses the calling goroutine's id from the first line of its
// stack trace ("goroutine 18 [running]:").
func goroutineID() uint64 {
	var buf [64]byte
	b := buf[:runtime.Stack(buf[:], false)]
	b = bytes.TrimPrefix(b, []byte("goroutine "))
	if i := bytes.IndexByte(b, ' '); i > 0 {
		b = b[:i]
	}
	id, _ := strconv.ParseUint(string(b), 10, 64)
	return id
}
