//go:build mpi || mpich

package gompi_test

import (
	"testing"

	"github.com/gompi/gompi/gompi"
)

// The per-call cost of the API over MPI, on one rank: the same calls as
// benches/ref/callcost.c makes in C (compare the two for what gompi adds).
//
//	go test -tags mpi -run '^$' -bench Call -count 5 ./gompi
//	mpicc -O2 -o callcost benches/ref/callcost.c && mpirun -n 1 ./callcost

func BenchmarkCallIprobe(b *testing.B) {
	c := gompi.World()
	for b.Loop() {
		c.Iprobe(0, 5)
	}
}

// BenchmarkCallSendRecvSelf sends 8 bytes to itself and receives them: the
// send returns at once where the library buffers small messages to self
// (Open MPI does; MPI does not promise it, and MPICH blocks).
func BenchmarkCallSendRecvSelf(b *testing.B) {
	c := gompi.World()
	buf, rbuf := make([]byte, 8), make([]byte, 8)
	for b.Loop() {
		if err := c.Send(buf, 0, 1); err != nil {
			b.Fatal(err)
		}
		if _, err := c.Recv(rbuf, 0, 1); err != nil {
			b.Fatal(err)
		}
	}
}

func BenchmarkCallIrecvIsendWaitSelf(b *testing.B) {
	c := gompi.World()
	buf, rbuf := make([]byte, 8), make([]byte, 8)
	for b.Loop() {
		r, _ := c.Irecv(rbuf, 0, 1)
		s, _ := c.Isend(buf, 0, 1)
		if _, err := r.Wait(); err != nil {
			b.Fatal(err)
		}
		if _, err := s.Wait(); err != nil {
			b.Fatal(err)
		}
	}
}

func BenchmarkCallAllreduceSelf(b *testing.B) {
	c := gompi.World()
	in, out := []int32{1, 2}, make([]int32, 2)
	op := gompi.Sum[int32]()
	for b.Loop() {
		if err := gompi.Allreduce(c, in, out, op); err != nil {
			b.Fatal(err)
		}
	}
}
