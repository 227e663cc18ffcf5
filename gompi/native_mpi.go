//go:build mpi || mpich

package gompi

import (
	"github.com/gompi/gompi/coll"
	"github.com/gompi/gompi/gompi/internal/mpi"
)

// Under the MPI backend every collective has one more algorithm, "mpi": the
// library's own (MPI_Bcast, MPI_Ibcast, ...). It comes first in every rule
// of the selection table, so it is what runs by default; naming another
// algorithm (WithAlgorithm, SetAlgorithm, GOMPI_COLL_<OP>) runs that one of
// package coll over MPI point-to-point instead, to compare algorithms on a
// real fabric.

const nativeColl = true

// nativeAlgorithm is the name of MPI's own collectives in coll's registry.
const nativeAlgorithm = "mpi"

// registerNative adds MPI's own collectives to package coll's registry and
// puts them first in every rule of the selection table (called by
// installCollectives, collectives.go).
func registerNative() error {
	for _, op := range coll.Operations() {
		err := coll.Register(coll.Algorithm{
			Op: op, Name: nativeAlgorithm,
			Summary:     "the MPI library's own " + mpi.MPIName(op) + " (its own choice of algorithm)",
			Cost:        coll.Cost{Formula: "the library's"},
			Constraints: "the cgo backend (build tag mpi)",
			Available: func(c coll.Comm, _ *coll.Args) bool {
				_, ok := c.(*collComm)
				return ok
			},
			Run: func(c coll.Comm, a *coll.Args) error { return c.(*collComm).c.c.Coll(op, a) },
		})
		if err != nil {
			return err
		}
		rules := coll.Table(op)
		for i := range rules {
			rules[i].Use = append([]string{nativeAlgorithm}, rules[i].Use...)
		}
		if err := coll.SetTable(op, rules); err != nil {
			return err
		}
	}
	return nil
}

// startNative starts MPI's own nonblocking form of op, in call order.
func (x *collComm) startNative(op coll.Operation, a *coll.Args) (*Request, error) {
	r, err := x.c.c.StartColl(op, a)
	return (*Request)(r), err
}
