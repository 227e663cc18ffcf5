package gompi

import (
	"encoding/binary"
	"fmt"
	"os"

	"golang.org/x/sys/unix"

	"github.com/gompi/gompi/gompi/internal/base"
)

// sharedMem is the memory of a window whose ranks share a host (made by
// WinAllocateShared, or by WinAllocate when every rank is reached through
// shared memory): each rank's part is an anonymous memory file (memfd) of
// its own, which the other ranks map by opening /proc/<pid>/fd/<fd> of its
// owner. Nothing has a name in /dev/shm, so nothing can be left behind:
// the kernel frees each file when its last mapping goes. A part starts with
// a header of lock words (winHeader), then the window's elements.
type sharedMem struct {
	f      *os.File // this rank's file, open until every peer mapped it
	local  []byte   // this rank's mapping (header included)
	maps   [][]byte // every rank's part as mapped here (header included)
	owned  [][]byte // mappings to unmap on close
	failed error    // why this rank could not make its part (non-strict)
	hdr    int      // bytes of lock and synchronization words before the elements
}

// newSharedMem makes this rank's part of size bytes. strict (for
// WinAllocateShared) refuses ranks on other hosts; otherwise a failure is
// recorded in the result, and exchange makes every rank agree.
func newSharedMem(c *Comm, size int, strict bool) (*sharedMem, error) {
	if strict {
		host := c.HostOf(c.Rank())
		for r := range c.Size() {
			if h := c.HostOf(r); h != host {
				return nil, c.errf("WinAllocateShared", base.ErrNotSupported, r, -1,
					fmt.Sprintf("rank %d runs on %s, this one on %s", r, h, host),
					"ranks of a shared window must share a host: split the communicator by host first")
			}
		}
	}
	s := &sharedMem{hdr: winHeaderSize(c.Size())}
	fail := func(class error, detail string) (*sharedMem, error) {
		if s.f != nil {
			s.f.Close()
			s.f = nil
		}
		err := c.errf("WinAllocateShared", class, -1, -1, detail, "")
		if strict {
			return nil, err
		}
		s.failed = err
		return s, nil
	}
	fd, err := unix.MemfdCreate("gompi-win", unix.MFD_CLOEXEC)
	if err != nil {
		return fail(base.ErrNotSupported, "memfd_create: "+err.Error())
	}
	s.f = os.NewFile(uintptr(fd), "gompi-win")
	total := s.hdr + size
	if err := s.f.Truncate(int64(total)); err != nil {
		return fail(base.ErrArg, fmt.Sprintf("sizing the window to %d bytes: %v", size, err))
	}
	m, err := unix.Mmap(fd, 0, total, unix.PROT_READ|unix.PROT_WRITE, unix.MAP_SHARED)
	if err != nil {
		return fail(base.ErrArg, fmt.Sprintf("mapping %d bytes: %v", size, err))
	}
	s.local = m
	s.owned = append(s.owned, m)
	return s, nil
}

// data returns this rank's elements (nil if it has no part).
func (s *sharedMem) data() []byte {
	if s.local == nil {
		return nil
	}
	return s.local[s.hdr:]
}

// identity is what the other ranks need to map this rank's part: the
// process, the descriptor and the size (gathered by newWindow).
func (s *sharedMem) identity() []byte {
	mine := make([]byte, 24)
	binary.LittleEndian.PutUint64(mine, uint64(os.Getpid()))
	fd := -1
	if s.f != nil {
		fd = int(s.f.Fd())
	}
	binary.LittleEndian.PutUint64(mine[8:], uint64(int64(fd)))
	binary.LittleEndian.PutUint64(mine[16:], uint64(len(s.local)))
	return mine
}

// exchange maps every peer's part, given every rank's identity, and reports
// whether every rank mapped every part (the same answer on every rank);
// the window then accesses its peers directly. In strict mode a failure is
// an error.
func (s *sharedMem) exchange(w *window, strict bool, all []byte) (bool, error) {
	s.maps = make([][]byte, w.n)
	failure := s.failed
	for r := range w.n {
		pid := int(binary.LittleEndian.Uint64(all[24*r:]))
		pfd := int(int64(binary.LittleEndian.Uint64(all[24*r+8:])))
		size := int(binary.LittleEndian.Uint64(all[24*r+16:]))
		switch {
		case r == w.me:
			s.maps[r] = s.local
		case pfd < 0:
			// That rank failed; it says so below.
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
		return false, err
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
	if failure != nil {
		if strict {
			return false, failure
		}
		return false, nil
	}
	return true, nil
}

func mapPeer(pid, fd, size int) ([]byte, error) {
	f, err := os.OpenFile(fmt.Sprintf("/proc/%d/fd/%d", pid, fd), os.O_RDWR, 0)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	return unix.Mmap(int(f.Fd()), 0, size, unix.PROT_READ|unix.PROT_WRITE, unix.MAP_SHARED)
}

// peer returns rank r's elements; header its lock words.
func (s *sharedMem) peer(r int) []byte { return s.maps[r][s.hdr:] }

func (s *sharedMem) header(r int) *winHeader { return headerOf(s.maps[r]) }

// words returns rank r's synchronization words (see winHeader).
func (s *sharedMem) words(r int) []byte { return s.maps[r][:s.hdr] }

func (s *sharedMem) close() {
	if s.f != nil {
		s.f.Close()
	}
	for _, m := range s.owned {
		unix.Munmap(m)
	}
	s.owned, s.maps, s.local = nil, nil, nil
}
