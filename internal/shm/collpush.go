package shm

import "sync/atomic"

// Push lines: per collective slot, two 640-byte lines per rank of the host
// (one per parity of a call) and a 64-byte line of acknowledgements per
// rank, outside the scratch halves and the steps. A rooted call of small
// blocks (gompi/shmcoll_push.go) has its root write each reader's block
// into that reader's own line, with a tag of the call, and leave; the
// reader waits for its line alone, copies the block and acknowledges the
// tag; the root writes a line again only once the call that last used it
// is acknowledged. Open MPI's fast boxes do the same for small messages:
// one box per receiver, nothing shared by all ranks. (640 bytes: a 512-byte
// block fits; with 128-byte lines the 512-byte Scatterv took the lines and
// then the slotted step, 1.8x its time before.)
//
// A line starts with a 64-bit tag (written last: the low half, the futex
// word, after the high half), then what the algorithm puts there; the
// acknowledgements (one 64-bit word per parity) are on a line of their own,
// which only the reader writes, so that the data line moves only from the
// root to the reader. A line nobody wrote holds zeros: tag =
// acknowledgement, free.

// PushLineSize is the size of one push line.
const PushLineSize = 640

// PushAckSize is the size of one rank's line of acknowledgements.
const PushAckSize = 64

// collPush is the size of one slot's push lines on a host of n ranks.
func collPush(n int) int64 { return align(int64(n)*(2*PushLineSize+PushAckSize), 4096) }

// CollPush returns slot i's push lines: rank r's line of parity p at
// (2r+p)·PushLineSize, its acknowledgements at 2n·PushLineSize +
// r·PushAckSize, n the communicator's ranks (at most the host's).
func (s *Segment) CollPush(i int) []byte {
	size := collPush(s.l.NRanks)
	start := s.l.pushOff + int64(i)*size
	return s.mem[start : start+size : start+size]
}

// WakeWord wakes the ranks asleep on the word w (SleepWord), if any rank of
// the slot sleeps on such a word: for a word stored with StoreRelease32,
// after a fence (an atomic store or add) that follows the store.
func (c *CollCtl) WakeWord(w *uint32) {
	if atomic.LoadInt32(&c.wsleep) != 0 {
		futexWake(w)
	}
}
