//go:build !linux

package core

import (
	"errors"
	"time"
)

// Off Linux the TCP transport is not available: Init fails for jobs that
// need it.
type netEvents struct{}

func (e *netEvents) start(n *netState) error {
	return errors.New("gompi: the TCP transport needs Linux (epoll)")
}
func (e *netEvents) stop()                                   {}
func (n *netState) sleep(d time.Duration, ready func() bool) { n.p.seg.Sleep(n.p.local, d, ready) }
func (n *netState) poke()                                    {}
