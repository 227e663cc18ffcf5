package core

import (
	"github.com/gompi/gompi/internal/shm"
	"github.com/gompi/gompi/rdtsc"
)

// A pipelined rendezvous (4 KiB up to the single-copy threshold) copies its
// fragments into this rank's cells, which the receiver read out of a few
// fragments before. A plain copy must first take each of a cell's 63 lines
// back from the reader's cache. Whether that is dear depends on where the
// two CPUs are, which on this machine's VM changes by the minute: when the
// ranks run on CPUs that share no cache (the machine's slower mode), it cost
// 0.5 µs and more per 4 KiB, and non-temporal stores (shm.CopyNT: the lines
// go to memory, the reader's copies are invalidated) made the 16 KiB
// ping-pong 4.83 → 3.89 µs, 4 KiB 2.35 → 2.02; when they share one (the
// faster mode), the plain copy found the lines close and cost about what
// the non-temporal one does (190-260 against 185-195 TSC ticks per 4032 B),
// and the non-temporal copy, whose reader then reads from memory, made the
// 16 KiB ping-pong 1.05 → 2.12 µs. So the sender times its copies and takes
// the non-temporal one while the plain one costs several times as much
// (docs/PERFORMANCE.md, "Fragments copied with non-temporal stores when
// plain copies are dear").
type fragCopier struct {
	plain, nt uint64 // moving averages of a whole fragment's copy, in TSC ticks
	n         uint32 // fragments copied
	useNT     bool
}

const (
	// fragProbeEvery: one fragment in this many is copied the other way,
	// so both averages follow the machine.
	fragProbeEvery = 256
	// fragNTRatio: non-temporal stores once the plain copy costs this many
	// times as much (the two modes measured 1.0-1.4 and about 15).
	fragNTRatio = 4
)

// copy copies src into dst (a cell's payload) the way that costs less now.
// Only whole fragments (shm.MaxPayload bytes) are timed; a message's short
// last fragment is copied the chosen way.
func (f *fragCopier) copy(dst, src []byte) {
	nt := f.useNT
	if len(src) < shm.MaxPayload {
		if nt {
			shm.CopyNT(dst, src)
		} else {
			copy(dst, src)
		}
		return
	}
	f.n++
	switch {
	case f.plain == 0:
		nt = false
	case f.nt == 0:
		nt = true
	case f.n%fragProbeEvery == 0:
		nt = !nt
	}
	t0 := rdtsc.Read()
	if nt {
		shm.CopyNT(dst, src)
	} else {
		copy(dst, src)
	}
	d := rdtsc.Read() - t0
	if d > 1<<20 {
		return // descheduled or moved mid-copy: not a copy's cost
	}
	if nt {
		f.nt = avgTicks(f.nt, d)
	} else {
		f.plain = avgTicks(f.plain, d)
	}
	if f.plain != 0 && f.nt != 0 {
		f.useNT = f.plain > fragNTRatio*f.nt
	}
}

// avgTicks is a moving average with weight 1/8 for the new sample, which
// counts at most 4 times the average: one copy stretched by an interrupt
// does not switch the method, a change of mode does within a few copies.
func avgTicks(avg, d uint64) uint64 {
	if avg == 0 {
		return max(d, 1)
	}
	return max(avg-avg/8+min(d, 4*avg)/8, 1)
}
