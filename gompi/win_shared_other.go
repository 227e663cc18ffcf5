//go:build !linux

package gompi

import "github.com/gompi/gompi/gompi/internal/base"

// sharedMem: windows in shared memory need Linux's memfd (see
// win_shared_linux.go); elsewhere WinAllocate uses the message path and
// WinAllocateShared is not supported.
type sharedMem struct{}

func newSharedMem(c *Comm, size int, strict bool) (*sharedMem, error) {
	if strict {
		return nil, c.errf("WinAllocateShared", base.ErrNotSupported, -1, -1, "shared windows need Linux", "")
	}
	return nil, nil
}

func (s *sharedMem) data() []byte                                              { return nil }
func (s *sharedMem) exchange(w *window, strict bool, all []byte) (bool, error) { return false, nil }
func (s *sharedMem) identity() []byte                                          { return make([]byte, identitySize) }
func (s *sharedMem) peer(r int) []byte                                         { return nil }
func (s *sharedMem) header(r int) *winHeader                                   { return nil }
func (s *sharedMem) close()                                                    {}

func (s *sharedMem) words(r int) []byte { return nil }

func releaseArena(r *rank) {}
