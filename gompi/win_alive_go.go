//go:build !mpi && !mpich

package gompi

import "github.com/gompi/gompi/internal/shm"

// peerGone reports whether a rank of the window has finalized, exited or
// died, or the job is aborting: a direct-path wait then gives up instead
// of waiting forever (the engine's waits do the same for messages).
func (w *window) peerGone() bool {
	p := w.user.r.proc
	seg := p.Segment()
	if seg == nil {
		return false
	}
	if _, _, aborted := seg.Aborted(); aborted {
		return true
	}
	for r := range w.n {
		if li := p.LocalIndex(w.user.WorldRank(r)); li >= 0 && seg.State(li) >= shm.StateFinalized {
			return true
		}
	}
	return false
}
