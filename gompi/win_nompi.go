//go:build !mpi && !mpich

package gompi

import (
	"reflect"

	"github.com/gompi/gompi/gompi/internal/backend"
	"github.com/gompi/gompi/gompi/internal/rma"
)

// The pure-Go runtime carries out windows itself (win_direct.go, and the
// service of win_serve.go); win_mpi.go maps them onto MPI windows under
// the MPI backend. These are never called here: nativeRMA is false, and
// no window has a nativeWin.

const nativeRMA = false

type nativeWin struct{}

func natFallback(error) bool { return false }

const (
	natPut = iota
	natGet
	natAcc
	natGetAcc
	natFetch
	natCAS
)

func natAllocate(string, *Comm, int, int, reflect.Type, winFlavor, bool) (*window, error) {
	panic("gompi: no MPI windows in the pure-Go runtime")
}

func (w *window) natCreate([]byte) error             { return nil }
func (w *window) natDynamic() error                  { return nil }
func (w *window) natAttach([]byte, uint64) error     { return nil }
func (w *window) natDetach([]byte) error             { return nil }
func (w *window) natSharedQuery(int) ([]byte, error) { return nil, nil }
func (w *window) natFree() error                     { return nil }
func (w *window) natDeferred(string, []int) error    { return nil }
func (w *window) natFence() error                    { return nil }
func (w *window) natLock(LockType, int) error        { return nil }
func (w *window) natUnlock(int) error                { return nil }
func (w *window) natLockAll() error                  { return nil }
func (w *window) natUnlockAll() error                { return nil }
func (w *window) natFlush(int, bool) error           { return nil }
func (w *window) natWinSync() error                  { return nil }
func (w *window) natPost([]int) error                { return nil }
func (w *window) natStart([]int) error               { return nil }
func (w *window) natComplete() error                 { return nil }
func (w *window) natWait(bool) (bool, error)         { return false, nil }
func (w *window) natOp(string, int, []byte, []byte, []byte, int, int, int, rma.OpCode, bool) (*backend.Request, error) {
	return nil, nil
}
