package core

import "time"

// Message kinds of unexpected messages that came over TCP (the segment's
// cell kinds are below 16).
const (
	kindNetEager = 16 + iota
	kindNetRTS
)

// ringSelf wakes the threads of this rank that sleep, wherever they sleep.
func (p *Proc) ringSelf() {
	p.seg.Ring(p.local)
	if p.net != nil {
		p.net.poke()
	}
}

// sleep blocks the calling thread until a message may have arrived or d
// passes (see netwait_linux.go for TCP); ready is re-checked once the thread
// counts as a sleeper.
func (p *Proc) sleep(d time.Duration, ready func() bool) {
	if p.net != nil {
		p.net.sleep(d, ready)
		return
	}
	p.seg.Sleep(p.local, d, ready)
}

// Transport names how this rank reaches world rank w: "self", "shm" (the
// host's segment) or "tcp".
func (p *Proc) Transport(w int) string {
	switch {
	case w == p.rank:
		return "self"
	case p.locals[w] >= 0:
		return "shm"
	default:
		return "tcp"
	}
}

var clockStart = time.Now()

// nanotime is a monotonic clock in nanoseconds.
func nanotime() int64 { return int64(time.Since(clockStart)) }
