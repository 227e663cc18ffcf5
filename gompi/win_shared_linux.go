package gompi

import (
	"encoding/binary"
	"fmt"
	"os"

	"golang.org/x/sys/unix"

	"github.com/gompi/gompi/gompi/internal/base"
)

// sharedMem is the memory of a window made by WinAllocateShared: each rank's
// part is an anonymous memory file (memfd) of its own, which the other ranks
// of the host map by opening /proc/<pid>/fd/<fd> of its owner. Nothing has
// a name in /dev/shm, so nothing can be left behind: the kernel frees each
// file when its last mapping goes.
type sharedMem struct {
	f     *os.File // this rank's file, open until every peer mapped it
	local []byte   // this rank's mapping
	maps  [][]byte // every rank's part, as mapped here
	owned [][]byte // mappings to unmap on close
}

func newSharedMem(c *Comm, size int) (*sharedMem, []byte, error) {
	host := c.HostOf(c.Rank())
	for r := range c.Size() {
		if h := c.HostOf(r); h != host {
			return nil, nil, c.errf("WinAllocateShared", base.ErrNotSupported, r, -1,
				fmt.Sprintf("rank %d runs on %s, this one on %s", r, h, host), "ranks of a shared window must share a host: split the communicator by host first")
		}
	}
	s := &sharedMem{}
	if size == 0 {
		return s, nil, nil
	}
	fd, err := unix.MemfdCreate("gompi-win", unix.MFD_CLOEXEC)
	if err != nil {
		return nil, nil, c.errf("WinAllocateShared", base.ErrNotSupported, -1, -1, "memfd_create: "+err.Error(), "")
	}
	s.f = os.NewFile(uintptr(fd), "gompi-win")
	if err := s.f.Truncate(int64(size)); err != nil {
		s.f.Close()
		return nil, nil, c.errf("WinAllocateShared", base.ErrArg, -1, -1, fmt.Sprintf("sizing the window to %d bytes: %v", size, err), "")
	}
	m, err := unix.Mmap(fd, 0, size, unix.PROT_READ|unix.PROT_WRITE, unix.MAP_SHARED)
	if err != nil {
		s.f.Close()
		return nil, nil, c.errf("WinAllocateShared", base.ErrArg, -1, -1, fmt.Sprintf("mapping %d bytes: %v", size, err), "")
	}
	s.local = m
	s.owned = append(s.owned, m)
	return s, m, nil
}

// exchange maps every peer's part; every rank learns whether all succeeded,
// so that the window is made everywhere or nowhere.
func (s *sharedMem) exchange(w *window) error {
	mine := make([]byte, 24)
	binary.LittleEndian.PutUint64(mine, uint64(os.Getpid()))
	fd := -1
	if s.f != nil {
		fd = int(s.f.Fd())
	}
	binary.LittleEndian.PutUint64(mine[8:], uint64(int64(fd)))
	binary.LittleEndian.PutUint64(mine[16:], uint64(len(s.local)))
	all := make([]byte, 24*w.n)
	if err := w.allgather(mine, all); err != nil {
		return err
	}
	s.maps = make([][]byte, w.n)
	var failure error
	for r := range w.n {
		pid := int(binary.LittleEndian.Uint64(all[24*r:]))
		pfd := int(int64(binary.LittleEndian.Uint64(all[24*r+8:])))
		size := int(binary.LittleEndian.Uint64(all[24*r+16:]))
		switch {
		case r == w.me:
			s.maps[r] = s.local
		case size == 0:
		default:
			m, err := mapPeer(pid, pfd, size)
			if err != nil {
				failure = w.errf("WinAllocateShared", base.ErrNotSupported, r, err.Error(),
					"the kernel must let ranks of one user open each other's /proc/<pid>/fd")
				continue
			}
			s.maps[r] = m
			s.owned = append(s.owned, m)
		}
	}
	ok := []byte{0}
	if failure != nil {
		ok[0] = 1
	}
	oks := make([]byte, w.n)
	if err := w.allgather(ok, oks); err != nil {
		return err
	}
	if s.f != nil {
		s.f.Close() // every peer has mapped it (or failed): the mappings keep it
		s.f = nil
	}
	for r, b := range oks {
		if b != 0 && failure == nil {
			failure = w.errf("WinAllocateShared", base.ErrNotSupported, r, fmt.Sprintf("rank %d could not map the window", r), "")
		}
	}
	return failure
}

func mapPeer(pid, fd, size int) ([]byte, error) {
	f, err := os.OpenFile(fmt.Sprintf("/proc/%d/fd/%d", pid, fd), os.O_RDWR, 0)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	return unix.Mmap(int(f.Fd()), 0, size, unix.PROT_READ|unix.PROT_WRITE, unix.MAP_SHARED)
}

func (s *sharedMem) peer(r int) []byte { return s.maps[r] }

func (s *sharedMem) close() {
	if s.f != nil {
		s.f.Close()
	}
	for _, m := range s.owned {
		unix.Munmap(m)
	}
	s.owned, s.maps, s.local = nil, nil, nil
}
