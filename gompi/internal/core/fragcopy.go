package core

import (
	"time"

	"github.com/gompi/gompi/internal/shm"
	"github.com/gompi/gompi/rdtsc"
)

// A pipelined rendezvous (4 KiB up to the single-copy threshold) copies its
// fragments into this rank's cells, which the receiver read out of a few
// fragments before. A plain copy must first take each of a cell's 63 lines
// back from the reader's cache. What that costs depends on where the two
// vCPUs are, which on this machine's VM changes by the minute. In its slower
// mode the plain copy of 4032 B took 520-1000 TSC ticks (200-400 ns), and
// non-temporal stores (shm.CopyNT: the lines go to memory, the reader's
// copies are invalidated) made the 16 KiB ping-pong 4.83 → 3.89 µs, 4 KiB
// 2.35 → 2.02, 8 KiB 3.24 → 2.90. In its faster mode the plain copy took
// 104-264 ticks (40-100 ns), the reader found the lines close, and the
// non-temporal copy, whose reader then reads from memory, made the 16 KiB
// ping-pong 1.05 → 2.12 µs. The non-temporal copy's own time does not tell
// the modes apart (450-680 ticks in the slow one, 150-240 in the fast one:
// the same ratio to the plain copy, about 1-1.5), so the sender times its
// plain copies and takes the non-temporal one while they are dear
// (docs/PERFORMANCE.md, "Rendezvous fragments copied with non-temporal
// stores while plain copies are dear").
type fragCopier struct {
	plain uint64 // moving average of a whole fragment's plain copy, in TSC ticks
	limit uint64 // fragDearNs in ticks; 0 until the tick rate is known
	tsc0  uint64 // tick and time of the first timed copy, for the rate
	t0    time.Time
	n     uint32 // whole fragments copied
	useNT bool
}

const (
	// fragDearNs: a plain copy of a whole fragment slower than this takes
	// its lines from far away; the two modes measured 40-100 and 200-400 ns.
	fragDearNs = 150
	// fragProbeEvery: while non-temporal, one whole fragment in this many
	// is copied plainly, so that the average follows the machine.
	fragProbeEvery = 256
	// fragTimeEvery: one plain copy of a whole fragment in this many is
	// timed (a power of two dividing fragProbeEvery): the clock's two
	// reads per fragment made the fast mode's 16 KiB ping-pong 5 % slower.
	fragTimeEvery = 8
	// fragRateAfter: the tick rate is taken once this much time has passed
	// since the first fragment; plain copies until then.
	fragRateAfter = 2 * time.Millisecond
)

// copy copies src into dst (a cell's payload) the way that costs less now.
// Only whole fragments (shm.MaxPayload bytes) are timed, one in
// fragTimeEvery; a message's short last fragment is copied the chosen way.
func (f *fragCopier) copy(dst, src []byte) {
	if len(src) < shm.MaxPayload {
		if f.useNT {
			shm.CopyNT(dst, src)
		} else {
			copy(dst, src)
		}
		return
	}
	f.n++
	if f.useNT && f.n%fragProbeEvery != 0 {
		shm.CopyNT(dst, src)
		return
	}
	if f.n%fragTimeEvery != 0 {
		copy(dst, src)
		return
	}
	t := rdtsc.Read()
	copy(dst, src)
	if d := rdtsc.Read() - t; d < 1<<20 { // longer: descheduled or moved, not a copy's cost
		f.plain = avgTicks(f.plain, d)
	}
	if f.limit == 0 {
		f.rate()
		return
	}
	f.useNT = f.plain > f.limit
}

// rate converts fragDearNs into ticks once enough time has passed.
func (f *fragCopier) rate() {
	if f.t0.IsZero() {
		f.t0, f.tsc0 = time.Now(), rdtsc.Read()
		return
	}
	if el := time.Since(f.t0); el >= fragRateAfter {
		ticks := rdtsc.Read() - f.tsc0
		f.limit = max(uint64(float64(ticks)/float64(el.Nanoseconds())*fragDearNs), 1)
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
