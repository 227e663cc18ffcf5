package shm

import (
	"fmt"
	"os"

	"golang.org/x/sys/unix"
)

// Create makes the segment of one host as an anonymous memory file (memfd).
// It has no name in /dev/shm, so nothing can be left behind: the kernel frees
// it when the last process that maps it or holds its descriptor exits, however
// that process ends. The launcher passes the file to the ranks it starts.
func Create(name string, l Layout) (*Segment, *os.File, error) {
	fd, err := unix.MemfdCreate("gompi-"+name, unix.MFD_CLOEXEC)
	if err != nil {
		return nil, nil, fmt.Errorf("shm: memfd_create: %w", err)
	}
	f := os.NewFile(uintptr(fd), "gompi-"+name)
	if err := f.Truncate(l.Size); err != nil {
		f.Close()
		return nil, nil, fmt.Errorf("shm: sizing the segment to %d bytes: %w", l.Size, err)
	}
	mem, err := unix.Mmap(fd, 0, int(l.Size), unix.PROT_READ|unix.PROT_WRITE, unix.MAP_SHARED)
	if err != nil {
		f.Close()
		return nil, nil, fmt.Errorf("shm: mapping the segment: %w", err)
	}
	format(mem, l)
	s, err := open(mem, unix.Munmap)
	if err != nil {
		unix.Munmap(mem)
		f.Close()
		return nil, nil, err
	}
	return s, f, nil
}

// Attach maps the segment passed to this process as descriptor fd, and closes
// the descriptor (the mapping keeps the memory alive).
func Attach(fd int) (*Segment, error) {
	var st unix.Stat_t
	if err := unix.Fstat(fd, &st); err != nil {
		return nil, fmt.Errorf("shm: segment descriptor %d: %w", fd, err)
	}
	mem, err := unix.Mmap(fd, 0, int(st.Size), unix.PROT_READ|unix.PROT_WRITE, unix.MAP_SHARED)
	if err != nil {
		return nil, fmt.Errorf("shm: mapping segment descriptor %d: %w", fd, err)
	}
	unix.Close(fd)
	s, err := open(mem, unix.Munmap)
	if err != nil {
		unix.Munmap(mem)
		return nil, err
	}
	return s, nil
}

// NewPrivate makes a segment in this process's memory, for the in-process
// mode (several ranks as goroutines of one process).
func NewPrivate(l Layout) (*Segment, error) {
	mem, err := unix.Mmap(-1, 0, int(l.Size), unix.PROT_READ|unix.PROT_WRITE, unix.MAP_SHARED|unix.MAP_ANON)
	if err != nil {
		return nil, fmt.Errorf("shm: mapping %d bytes: %w", l.Size, err)
	}
	format(mem, l)
	return open(mem, unix.Munmap)
}
