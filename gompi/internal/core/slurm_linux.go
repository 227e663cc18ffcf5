package core

import (
	"os"

	"github.com/gompi/gompi/internal/shm"
	"golang.org/x/sys/unix"
)

// watchNodePeers marks a rank of this node dead in the segment when its
// process ends without finalizing, as golaunch does for the ranks it
// supervises: the peers waiting on it then get ErrPeerLost instead of
// waiting forever. Under srun nobody else does (Slurm kills the step on a
// bad exit only with --kill-on-bad-exit). It watches each peer through a
// pidfd, and returns when stop is closed.
func watchNodePeers(p *Proc, stop *os.File) {
	n := p.seg.Layout().NRanks
	fds := make([]int, n)
	for l := range fds {
		fds[l] = -1
	}
	defer func() {
		for _, fd := range fds {
			if fd >= 0 {
				unix.Close(fd)
			}
		}
	}()
	for {
		pfds := []unix.PollFd{{Fd: int32(stop.Fd()), Events: unix.POLLIN}}
		var who []int
		waiting := false // a peer has not recorded its pid yet
		for l := 0; l < n; l++ {
			if l == p.local || p.seg.State(l) >= shm.StateFinalized {
				continue
			}
			if fds[l] < 0 {
				pid := p.seg.PID(l)
				if pid == 0 {
					waiting = true
					continue
				}
				fd, err := unix.PidfdOpen(pid, 0)
				if err != nil {
					if err == unix.ESRCH {
						p.seg.SetState(l, shm.StateDead)
					}
					continue // ENOSYS (Linux < 5.3): not watched
				}
				fds[l] = fd
			}
			pfds = append(pfds, unix.PollFd{Fd: int32(fds[l]), Events: unix.POLLIN})
			who = append(who, l)
		}
		timeout := -1
		if waiting {
			timeout = 50 // look again for the pids still missing
		}
		if _, err := unix.Poll(pfds, timeout); err != nil && err != unix.EINTR {
			return
		}
		if pfds[0].Revents != 0 {
			return
		}
		for i, l := range who {
			if pfds[i+1].Revents != 0 {
				if p.seg.State(l) == shm.StateRunning {
					p.seg.SetState(l, shm.StateDead)
				}
				unix.Close(fds[l])
				fds[l] = -2 // ended: no longer watched
			}
		}
	}
}
