package gompi

import "github.com/gompi/gompi/gompi/internal/base"

// Epoch names the synchronization a one-sided call belongs to, for tracers.
type Epoch uint8

// Epoch kinds.
const (
	EpochNone    Epoch = iota // no epoch (creation, Free, a call outside any)
	EpochFence                // between Fences
	EpochPSCW                 // an access epoch (Start...Complete) or exposure epoch (Post...Wait)
	EpochLock                 // Lock...Unlock of the target
	EpochLockAll              // LockAll...UnlockAll
)

func (e Epoch) String() string {
	return [...]string{"none", "fence", "pscw", "lock", "lock_all"}[e]
}

var winRoutineNames = [...]string{"Win_create", "Win_allocate", "Win_allocate_shared", "Win_create_dynamic",
	"Win_attach", "Win_detach", "Win_free", "Put", "Get", "Accumulate", "Get_accumulate", "Fetch_and_op",
	"Compare_and_swap", "Rput", "Rget", "Raccumulate", "Rget_accumulate", "Win_fence", "Win_post", "Win_start",
	"Win_complete", "Win_wait", "Win_test", "Win_lock", "Win_unlock", "Win_lock_all", "Win_unlock_all",
	"Win_flush", "Win_flush_all", "Win_flush_local", "Win_flush_local_all", "Win_sync"}

// winTraced runs the creation of a window under the tracer (its id is not
// known before).
func winTraced(r Routine, c *Comm, n int, f func() error) error {
	if b := tracer.Load(); b != nil {
		var oc openCall
		tok := b.begin(&oc, &Event{Routine: r, Comm: c, Peer: -1, Tag: -1, Bytes: n})
		err := f()
		b.end(&oc, tok, base.EmptyStatus, err)
		return err
	}
	return f()
}

// traced runs one call on w under the tracer. It is small enough to be
// inlined, so that without a tracer f is called directly: the operations
// of the same-host path take tens of ns, and a call through a closure
// was a visible part of them.
func (w *window) traced(r Routine, target, n int, f func() error) error {
	if tracer.Load() != nil {
		return w.tracedSlow(r, target, n, f)
	}
	return f()
}

func (w *window) tracedSlow(r Routine, target, n int, f func() error) error {
	b := tracer.Load()
	if b == nil {
		return f()
	}
	var oc openCall
	tok := b.begin(&oc, &Event{Routine: r, Comm: w.user, Peer: target, Tag: -1, Bytes: n, Window: w.id, Epoch: w.epoch(target)})
	err := f()
	b.end(&oc, tok, base.EmptyStatus, err)
	return err
}

// epoch says which epoch gives access to target now (for the calls on
// every target, the widest open one).
func (w *window) epoch(target int) Epoch {
	w.mu.Lock()
	defer w.mu.Unlock()
	switch {
	case w.lockAll:
		return EpochLockAll
	case target >= 0 && target < w.n && w.lockType[target] != 0:
		return EpochLock
	case w.access != nil || w.exposure != nil:
		return EpochPSCW
	case w.fence:
		return EpochFence
	}
	return EpochNone
}
