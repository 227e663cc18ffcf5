//go:build !linux

package gompi

import "github.com/gompi/gompi/gompi/internal/base"

// sharedMem: shared windows need Linux's memfd (see win_shared_linux.go).
type sharedMem struct{}

func newSharedMem(c *Comm, size int) (*sharedMem, []byte, error) {
	return nil, nil, c.errf("WinAllocateShared", base.ErrNotSupported, -1, "shared windows need Linux", "")
}

func (s *sharedMem) exchange(w *window) error { return nil }
func (s *sharedMem) peer(r int) []byte        { return nil }
func (s *sharedMem) close()                   {}
