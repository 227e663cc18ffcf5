package gompi

import "github.com/gompi/gompi/internal/shm"

// Huge pages under the root's buffer of the linear Bcast and Scatter
// (issue 18, branch big8; docs/PERFORMANCE.md, "Four ranks, 256 KiB: huge
// pages under the chain's and Reduce's buffers").
//
// preferLinearLarge (selection_linear.go) sends Bcast of 256-512 KiB and
// Scatter of 128-512 KiB blocks on 4 to 8 ranks point to point from the
// root. Point-to-point credits a source's 2 MiB page with the bytes sent
// from it (shm.NoteSource) and collapses it in the background after 16
// whole pages: a 256 KiB Bcast to 3 readers gets there at its 43rd call,
// and the collapse (milliseconds) then runs beside the readers' copies.
// In the sweep's 110 calls per size that is most of the run on 4 KiB pages
// and one stall. Here the root collapses the pages under its buffer in the
// call itself, before it sends, at the buffer's second call (as
// publishBufN does for the two-rank single copies), so the readers copy
// from a huge page from the third call on.

// linearHugeOn turns it on (GOMPI_COLL_HUGE_MANY=0 turns it off with
// publishBufMany's collapse, for A/B runs).
var linearHugeOn = collManyOn

// noteLinearRoot is called by Bcast and Scatter on every rank before the
// call: at the root, where the call runs linear by the default selection's
// rule (its sizes and ranks, kept in step with preferLinearLarge by
// hand), it collapses src's pages at src's second call. block is the
// bytes each reader gets. Scatter in place at the root (recv nil) is not
// noted.
func noteLinearRoot(c *Comm, src []byte, block, root int, scatter bool) {
	if !linearHugeOn || block < 128<<10 || block > 512<<10 || (!scatter && block < 256<<10) {
		return
	}
	n := c.Size()
	if n < 4 || n > collManyMaxRanks || c.Rank() != root || (!scatter && n == 8 && block <= 256<<10) {
		return // (Bcast on 8 ranks up to 256 KiB runs "shm": preferCMAWhereFaster)
	}
	shm.NoteSourceNow(src, collNowPublishes)
}
