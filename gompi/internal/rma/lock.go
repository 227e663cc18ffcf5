package rma

// Waiter is an origin waiting for a lock: its rank, the lock type and the
// tag its grant is to be sent with.
type Waiter struct {
	Origin int
	Type   uint8
	Tag    uint32
}

// LockTable is a target's passive-target lock: any number of shared holders
// or one exclusive holder. Requests that cannot be granted wait in arrival
// order, and a shared request waits behind an exclusive one that came
// first, so writers are not starved by a stream of readers. It is used by
// one goroutine (the target's service) and needs no lock of its own.
type LockTable struct {
	shared    int
	exclusive bool
	queue     []Waiter
}

// Acquire asks for the lock; it reports whether w holds it now (otherwise
// w waits, and a later Release grants it).
func (t *LockTable) Acquire(w Waiter) bool {
	if len(t.queue) == 0 && t.compatible(w.Type) {
		t.take(w.Type)
		return true
	}
	t.queue = append(t.queue, w)
	return false
}

// Release gives back a lock of the given type and appends to granted the
// waiters that hold it now.
func (t *LockTable) Release(typ uint8, granted []Waiter) []Waiter {
	if typ == LockExclusive {
		t.exclusive = false
	} else if t.shared > 0 {
		t.shared--
	}
	for len(t.queue) > 0 && t.compatible(t.queue[0].Type) {
		w := t.queue[0]
		t.queue = t.queue[1:]
		t.take(w.Type)
		granted = append(granted, w)
	}
	if len(t.queue) == 0 {
		t.queue = nil
	}
	return granted
}

// Held reports whether anyone holds the lock or waits for it.
func (t *LockTable) Held() bool { return t.exclusive || t.shared > 0 || len(t.queue) > 0 }

func (t *LockTable) compatible(typ uint8) bool {
	if typ == LockExclusive {
		return !t.exclusive && t.shared == 0
	}
	return !t.exclusive
}

func (t *LockTable) take(typ uint8) {
	if typ == LockExclusive {
		t.exclusive = true
	} else {
		t.shared++
	}
}
