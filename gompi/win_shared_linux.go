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
// shared memory): each rank's part is a chunk of its arena (a memory file
// the rank keeps for all its windows, win_arena_linux.go), or when that is
// full, an anonymous memory file (memfd) of its own. The other ranks map
// it by opening /proc/<pid>/fd/<fd> of its owner. Nothing has a name in
// /dev/shm, so nothing can be left behind: the kernel frees each file when
// its last mapping goes. A part starts with a header of lock words
// (winHeader), then the window's elements.
type sharedMem struct {
	ar     *arena   // this rank's part is a chunk of ar (nil: a file of its own, f)
	chunk  span     // with ar: the chunk
	ready  bool     // with ar: this rank has mapped the arenas of every rank of the communicator
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
	total := s.hdr + size
	if a := arenaOf(c.r); a != nil {
		if chunk, ok := a.alloc(total); ok {
			s.ar, s.chunk = a, chunk
			s.local = a.mem[chunk.start : chunk.start+total]
			s.ready = a.mapped(c)
			return s, nil
		}
	}
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

// identity is what the other ranks need to map this rank's part
// (identitySize bytes, gathered by newWindow): the process, the
// descriptor, the size of the file to map, the part's offset in it (-1:
// the file is the part's own), the part's size, and whether this rank
// has mapped every peer's arena already.
func (s *sharedMem) identity() []byte {
	mine := make([]byte, identitySize)
	fd, mapSize, off := -1, len(s.local), -1
	switch {
	case s.ar != nil:
		fd, mapSize, off = int(s.ar.f.Fd()), arenaSize, s.chunk.start
	case s.f != nil:
		fd = int(s.f.Fd())
	}
	ready := 0
	if s.ready {
		ready = 1
	}
	for i, v := range []int{os.Getpid(), fd, mapSize, off, len(s.local), ready} {
		binary.LittleEndian.PutUint64(mine[8*i:], uint64(int64(v)))
	}
	return mine
}

// part is a rank's identity, decoded.
type part struct{ pid, fd, mapSize, off, size, ready int }

func partOf(all []byte, r int) part {
	var v [6]int
	for i := range v {
		v[i] = int(int64(binary.LittleEndian.Uint64(all[identitySize*r+8*i:])))
	}
	return part{v[0], v[1], v[2], v[3], v[4], v[5]}
}

// exchange maps every peer's part, given every rank's identity, and reports
// whether every rank mapped every part (the same answer on every rank);
// the window then accesses its peers directly. In strict mode a failure is
// an error.
//
// When every part is a chunk of its rank's arena and every rank had mapped
// every peer's arena before (each says so in its identity, so all know
// it), the parts are slices of those mappings: nothing can fail and
// nothing more is exchanged. Otherwise each rank maps what it lacks, and a
// second exchange makes all agree whether every rank succeeded.
func (s *sharedMem) exchange(w *window, strict bool, all []byte) (bool, error) {
	s.maps = make([][]byte, w.n)
	ready := s.ar != nil
	for r := range w.n {
		ready = ready && partOf(all, r).ready == 1
	}
	if ready {
		for r := range w.n {
			p := partOf(all, r)
			if r == w.me {
				s.maps[r] = s.local
			} else {
				s.maps[r] = s.ar.mappedPeer(w.user.WorldRank(r))[p.off : p.off+p.size]
			}
		}
		return true, nil
	}
	failure := s.failed
	for r := range w.n {
		p := partOf(all, r)
		switch {
		case r == w.me:
			s.maps[r] = s.local
		case p.fd < 0:
			// That rank failed; it says so below.
		default:
			m, err := s.mapPart(arenaOf(w.user.r), w.user.WorldRank(r), p)
			if err != nil {
				failure = w.errf("WinAllocateShared", base.ErrNotSupported, r, err.Error(),
					"the kernel must let ranks of one user open each other's /proc/<pid>/fd")
				continue
			}
			s.maps[r] = m
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

// mapPart maps the part p of world rank wr: a slice of its arena (mapped
// here once and kept in a, this rank's arena), or its own file.
func (s *sharedMem) mapPart(a *arena, wr int, p part) ([]byte, error) {
	if p.off < 0 {
		m, err := mapPeer(p.pid, p.fd, p.size)
		if err == nil {
			s.owned = append(s.owned, m)
		}
		return m, err
	}
	if p.mapSize != arenaSize || p.off+p.size > arenaSize {
		return nil, fmt.Errorf("rank %d's part (%d bytes at %d of %d) is outside an arena", wr, p.size, p.off, p.mapSize)
	}
	var m []byte
	var err error
	if a != nil {
		m, err = a.peer(wr, p.pid, p.fd)
	} else if m, err = mapPeer(p.pid, p.fd, arenaSize); err == nil {
		s.owned = append(s.owned, m)
	}
	if err != nil {
		return nil, err
	}
	return m[p.off : p.off+p.size], nil
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
	if s.ar != nil {
		s.ar.release(s.chunk)
		s.ar = nil
	}
	for _, m := range s.owned {
		unix.Munmap(m)
	}
	s.owned, s.maps, s.local = nil, nil, nil
}
