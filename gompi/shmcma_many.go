package gompi

import (
	"os"
	"strconv"
)

// Huge pages under the single-copy buffers of 3 to 8 ranks, 256 KiB up to
// 1 MiB (issue 18, branch big8; docs/PERFORMANCE.md, "Four ranks, 256 KiB:
// huge pages under the chain's and Reduce's buffers").
//
// publishBuf gives buffers under collHugeMin no huge page at all, and
// publishBufN collapses the smaller ones before their publish on two ranks
// only. On 4 ranks sharing 2 CPUs the chain of Scan and Exscan hands a
// 256 KiB vector on three times (process_vm_writev into the next rank's
// receive buffer, or process_vm_readv out of the previous rank's), and
// Reduce's single copy reads every input: each transfer pins 64 pages of
// 4 KiB on both sides where a collapsed buffer pins one huge folio.
// publishBufMany collapses those buffers the way publishBufN does on two
// ranks (shm.NoteSourceNow, in the caller, at the buffer's second
// publish, before the record is written, so no peer copies from a page
// while it is collapsed). Buffers of collHugeMin or more keep the
// background collapse they had: at 8 ranks and 1 MiB the collapse before
// the publish made Scan slower (golaunch -n 8 benches osu --op scan
// --sizes 1048576: 754/759 against 598/578 µs, two rounds).

// collManyMaxRanks is the most ranks publishBufMany collapses for: 4 and 8
// were measured, more ranks were not.
const collManyMaxRanks = 8

// collManyOn turns the collapse on 3 to 8 ranks on (GOMPI_COLL_HUGE_MANY=0
// turns it off, for A/B runs).
var collManyOn = func() bool {
	v, err := strconv.ParseBool(os.Getenv("GOMPI_COLL_HUGE_MANY"))
	return err != nil || v
}()

// collManyWanted reports whether a buffer of size bytes published in a
// communicator of n ranks (n > 2) is collapsed before its publish.
func collManyWanted(size, n int) bool {
	return collManyOn && n > 2 && n <= collManyMaxRanks && size >= collNowMin && size < collHugeMin
}

// publishBufMany is publishBufN, with buffers of 256 KiB up to 1 MiB
// collapsed before their publish on 3 to 8 ranks too.
func publishBufMany(rec, buf []byte, n int) {
	if collManyWanted(len(buf), n) {
		n = 2 // publishBufN's two-rank path: the collapse before the publish
	}
	publishBufN(rec, buf, n)
}
