//go:build !mpi && !mpich

package gompi

import (
	"github.com/gompi/gompi/coll"
	"github.com/gompi/gompi/gompi/internal/base"
)

// The pure-Go runtime has no collectives of its own below coll's algorithms
// (see native_mpi.go for the MPI backend's).

const nativeColl = false

const nativeAlgorithm = ""

// registerNative has nothing to register: see nativeColl.
func registerNative() error { return nil }

func (x *collComm) startNative(coll.Operation, *coll.Args) (*Request, error) {
	return nil, base.New("collective", base.ErrNotSupported, "no native collectives in the pure-Go runtime", "")
}
