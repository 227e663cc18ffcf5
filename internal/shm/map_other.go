//go:build !linux

package shm

import (
	"errors"
	"os"
)

var errNoShm = errors.New("shm: shared segments between processes need Linux")

// Create is not available off Linux.
func Create(name string, l Layout) (*Segment, *os.File, error) { return nil, nil, errNoShm }

// Attach is not available off Linux.
func Attach(fd int) (*Segment, error) { return nil, errNoShm }

// NewPrivate makes a segment in Go memory for the in-process mode.
func NewPrivate(l Layout) (*Segment, error) {
	mem := make([]byte, l.Size+4096)
	format(mem, l)
	return open(mem, nil)
}
