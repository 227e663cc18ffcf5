package gompi

import (
	"encoding/binary"
	"unsafe"

	"github.com/gompi/gompi/internal/shm"
)

// Huge pages under two-rank single-copy buffers, collapsed before they are
// published (issue 18, branch big6; docs/PERFORMANCE.md, "Two ranks,
// 256 KiB and 1 MiB: collapses before the publish").
//
// publishBuf credits buffers of 1 MiB or more for a collapse in the
// background, which on two ranks runs beside the peer's copies in the
// calls that follow (the 1 MiB tail), and offers nothing smaller because
// background collapses of 256 KiB buffers slowed the calls they ran in.
// On two ranks publishBufN instead collapses, in the caller and before
// the record is written, the 2 MiB pages under a buffer of collNowMin or
// more at its second publish (shm.NoteSourceNow): no copy runs from the
// page while it is collapsed, the one call that does it waits for it,
// and the later calls copy from a huge page.

// collNowMin is the smallest buffer collapsed before its publish on two
// ranks.
const collNowMin = 256 << 10

// collNowPublishes is the publish of a buffer at which its pages are
// collapsed: a buffer used once is never touched.
const collNowPublishes = 2

// publishBufN is publishBuf in a communicator of n ranks.
func publishBufN(rec, buf []byte, n int) {
	if n != 2 || len(buf) < collNowMin {
		publishBuf(rec, buf)
		return
	}
	shm.NoteSourceNow(buf, collNowPublishes)
	binary.LittleEndian.PutUint64(rec[0:], uint64(selfPID))
	binary.LittleEndian.PutUint64(rec[8:], uint64(uintptr(unsafe.Pointer(unsafe.SliceData(buf)))))
	binary.LittleEndian.PutUint64(rec[16:], uint64(len(buf)))
}
