//go:build !linux

package core

import (
	"errors"
	"time"

	"github.com/gompi/gompi/internal/jobenv"
)

// Off Linux there is no TCP transport (it is built on epoll and raw socket
// I/O): a job that needs it fails at Init, saying so.
type netState struct{}

func netInit(p *Proc, job *jobenv.Job, tcpPeers []int) (*netState, error) {
	return nil, errors.New("gompi: the TCP transport (peers on other hosts, GOMPI_TRANSPORT=tcp) needs Linux")
}

func (n *netState) gone(w int32) bool                        { return true }
func (n *netState) lostDetail(w int32) string                { return "" }
func (n *netState) close(bye bool)                           {}
func (n *netState) pollLocked()                              {}
func (n *netState) sleep(d time.Duration, ready func() bool) {}
func (n *netState) poke()                                    {}
func (p *Proc) netSend(r *Request) error                     { return p.lostErr("Send", r) }
func (p *Proc) netDeliverMsg(r *Request, m *message)         {}
