//go:build mpi || mpich

package mpi

import (
	"bytes"
	"context"
	"errors"
	"os"
	"reflect"
	"testing"
	"time"
	"unsafe"

	"github.com/gompi/gompi/coll"
	"github.com/gompi/gompi/gompi/internal/base"
	"github.com/gompi/gompi/internal/jobenv"
	"github.com/gompi/gompi/rdtsc"
)

// These tests run as a one-rank MPI job (MPI's singleton init: no mpirun
// needed); the conformance suite (test/conformance) runs the API over this
// backend on many ranks.

var proc *Proc

func TestMain(m *testing.M) {
	p, _, err := Init()
	if err != nil {
		panic(err)
	}
	proc = p
	code := m.Run()
	p.Close()
	os.Exit(code)
}

func TestThreadLevel(t *testing.T) {
	provided, serialized := proc.ThreadLevel()
	if provided < 0 || provided > 3 {
		t.Fatalf("provided thread level %d", provided)
	}
	want := provided < 3 || os.Getenv(SerializeEnv) == "1"
	if serialized != want {
		t.Fatalf("serialized = %v with provided %d and %s=%q", serialized, provided, SerializeEnv, os.Getenv(SerializeEnv))
	}
	t.Logf("%s: thread level %d, serialized %v", Library, provided, serialized)
}

func TestSelfMessages(t *testing.T) {
	c := proc.World()
	if c.Rank() != 0 || c.Size() != 1 || c.WorldRank(0) != 0 {
		t.Fatalf("world: rank %d of %d", c.Rank(), c.Size())
	}
	msg := []byte("hello, self")
	// Nonblocking: MPI does not promise to buffer a blocking send to self.
	first, err := c.Isend(msg, 0, 3, ModeStandard)
	if err != nil {
		t.Fatal(err)
	}
	st, err := c.Probe(base.AnySource, base.AnyTag)
	if err != nil || st.Source != 0 || st.Tag != 3 || st.Count != len(msg) {
		t.Fatalf("Probe: %+v %v", st, err)
	}
	if st, ok := c.Iprobe(0, 3); !ok || st.Count != len(msg) {
		t.Fatalf("Iprobe: %+v %v", st, ok)
	}
	buf := make([]byte, 5)
	st, err = c.Recv(buf, 0, 3)
	if !errors.Is(err, base.ErrTruncate) || st.Count != 5 || string(buf) != "hello" {
		t.Fatalf("truncated Recv: %+v %q %v", st, buf, err)
	}
	if _, err := first.Wait(); err != nil {
		t.Fatal(err)
	}
	var be *base.Error
	if !errors.As(err, &be) || be.Op != "Recv" || be.Peer != 0 || be.Tag != 3 {
		t.Fatalf("truncation error does not say where: %#v", err)
	}
	// Nonblocking, with the receive posted first.
	rbuf := make([]byte, 64)
	r := c.Irecv(rbuf, base.AnySource, 7)
	if r.Done() {
		t.Fatal("a receive with nothing sent is done")
	}
	s, err := c.Isend(msg, 0, 7, ModeSync)
	if err != nil {
		t.Fatal(err)
	}
	st, err = r.Wait()
	if err != nil || st.Count != len(msg) || !bytes.Equal(rbuf[:st.Count], msg) {
		t.Fatalf("Irecv: %+v %v", st, err)
	}
	if _, err := s.Wait(); err != nil {
		t.Fatal(err)
	}
	// A cancelled receive.
	r = c.Irecv(rbuf, 0, 8)
	if err := r.Cancel(); err != nil {
		t.Fatal(err)
	}
	if st, err := r.Wait(); err != nil || !st.Cancelled {
		t.Fatalf("cancelled: %+v %v", st, err)
	}
	if err := s.Cancel(); !errors.Is(err, base.ErrNotSupported) {
		t.Fatalf("cancelling a send: %v", err)
	}
}

func TestPersistentSelf(t *testing.T) {
	c := proc.World()
	sbuf, rbuf := make([]byte, 100), make([]byte, 100)
	sr, rr := c.SendInit(sbuf, 0, 1, ModeStandard), c.RecvInit(rbuf, 0, 1)
	for i := 0; i < 5; i++ {
		sbuf[0] = byte(i)
		if err := rr.Start(); err != nil {
			t.Fatal(err)
		}
		if err := sr.Start(); err != nil {
			t.Fatal(err)
		}
		if err := sr.Start(); !errors.Is(err, base.ErrRequest) {
			t.Fatalf("starting an active request: %v", err)
		}
		if _, err := sr.Wait(); err != nil {
			t.Fatal(err)
		}
		if st, err := rr.Wait(); err != nil || st.Count != 100 || rbuf[0] != byte(i) {
			t.Fatalf("run %d: %+v %v", i, st, err)
		}
		if rr.Active() || !rr.Done() {
			t.Fatal("a completed persistent request is still active")
		}
	}
}

func TestErrorsFromMPI(t *testing.T) {
	// The API checks ranks and tags before the backend sees them; what MPI
	// says about bad ones must still come back as gompi's classes.
	c := proc.World()
	if err := c.Send(nil, 5, 0, ModeStandard); !errors.Is(err, base.ErrRank) {
		t.Errorf("send to rank 5 of 1: %v", err)
	}
	if err := c.Send(nil, 0, -3, ModeStandard); !errors.Is(err, base.ErrTag) {
		t.Errorf("send with tag -3: %v", err)
	}
	if r := c.Irecv(nil, 9, 0); !r.Done() || !errors.Is(r.err, base.ErrRank) {
		t.Errorf("receive from rank 9 of 1: %v", r.err)
	}
}

func TestTooLargeForMPI(t *testing.T) {
	// A 2 GiB view of a small buffer: the backend must refuse it before MPI
	// (or anything) touches the memory.
	small := make([]byte, 1)
	huge := unsafe.Slice(&small[0], maxCount+1)
	c := proc.World()
	if err := c.Send(huge, 0, 0, ModeStandard); !errors.Is(err, base.ErrNotSupported) {
		t.Errorf("Send: %v", err)
	}
	if _, err := c.Recv(huge, 0, 0); !errors.Is(err, base.ErrNotSupported) {
		t.Errorf("Recv: %v", err)
	}
	if _, err := c.Isend(huge, 0, 0, ModeStandard); !errors.Is(err, base.ErrNotSupported) {
		t.Errorf("Isend: %v", err)
	}
	if r := c.Irecv(huge, 0, 0); !errors.Is(r.err, base.ErrNotSupported) {
		t.Errorf("Irecv: %v", r.err)
	}
	if err := c.Coll(coll.OpBcast, &coll.Args{Recv: huge}); !errors.Is(err, base.ErrNotSupported) {
		t.Errorf("Bcast: %v", err)
	}
}

func TestCommunicators(t *testing.T) {
	c := proc.World()
	d, err := c.Dup()
	if err != nil || d.Size() != 1 || d.Name() != "world.dup" {
		t.Fatalf("Dup: %v %v", d, err)
	}
	s, err := c.Split(3, 0)
	if err != nil || s.Size() != 1 || s.WorldRank(0) != 0 {
		t.Fatalf("Split: %v %v", s, err)
	}
	if u, err := c.Split(base.Undefined, 0); u != nil || err != nil {
		t.Fatalf("Split(Undefined): %v %v", u, err)
	}
	if err := d.Free(); err != nil {
		t.Fatal(err)
	}
	if err := s.Free(); err != nil {
		t.Fatal(err)
	}
	base1, base2 := c.CollTagBase(), c.CollTagBase()
	if base2 <= base1 && base2 != 0 || base2>>CollTagShift > int(c.tagMask) {
		t.Fatalf("collective tag bases %d, %d (mask %d)", base1, base2, c.tagMask)
	}
}

func TestNativeCollectivesOnOneRank(t *testing.T) {
	c := proc.World()
	in := []byte{1, 2, 3, 4, 5, 6, 7, 8}
	out := make([]byte, 8)
	// A predefined operator and a user one (on one rank MPI calls neither).
	for _, op := range []coll.Op{coll.Sum[int32](), coll.NewOp("first", false, func(in, inout []int16) {})} {
		clear(out)
		if err := c.Coll(coll.OpAllreduce, &coll.Args{Send: in, Recv: out, Op: op}); err != nil {
			t.Fatalf("%s: %v", op.Name, err)
		}
		if !bytes.Equal(out, in) {
			t.Fatalf("%s on one rank: %v", op.Name, out)
		}
	}
	r, err := c.StartColl(coll.OpBcast, &coll.Args{Recv: out, Root: 0})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := r.Wait(); err != nil {
		t.Fatal(err)
	}
	n := 0
	userOps.Range(func(any, any) bool { n++; return true })
	if n != 0 {
		t.Fatalf("%d user-operator datatypes left registered", n)
	}
}

func TestTransportAndHosts(t *testing.T) {
	if got := proc.Transport(0); got != "self" {
		t.Errorf("Transport(self) = %q", got)
	}
	if got := proc.Transport(1); got != "mpi" {
		t.Errorf("Transport(other) = %q", got)
	}
	hs := hostMap([]string{"a", "b", "a", "c", "b"})
	want := []jobenv.HostRanks{{Name: "a", Ranks: []int{0, 2}}, {Name: "b", Ranks: []int{1, 4}}, {Name: "c", Ranks: []int{3}}}
	if !reflect.DeepEqual(hs, want) {
		t.Errorf("host map: %+v, want %+v", hs, want)
	}
}

func TestRunLocalNotSupported(t *testing.T) {
	err := RunLocal(context.Background(), 2, func(*Proc) error { return nil })
	if !errors.Is(err, base.ErrNotSupported) {
		t.Fatalf("RunLocal: %v", err)
	}
}

func TestClock(t *testing.T) {
	c, err := rdtsc.ByName("mpi")
	if err != nil {
		t.Fatal(err)
	}
	a := c.Now()
	time.Sleep(5 * time.Millisecond)
	if d := c.Now() - a; d < 0.004 || d > 5 {
		t.Fatalf("5 ms measured as %g s", d)
	}
	if res := c.Resolution(); res <= 0 || res > 1e-3 {
		t.Fatalf("MPI_Wtick %g", res)
	}
}

func TestGoRequest(t *testing.T) {
	c := proc.World()
	boom := errors.New("boom")
	r := c.Go(func() error { time.Sleep(time.Millisecond); return boom })
	i, err := proc.WaitAny([]*Request{nil, r})
	if i != 1 || err != nil {
		t.Fatalf("WaitAny: %d %v", i, err)
	}
	if _, err := r.Wait(); err != boom {
		t.Fatalf("Wait: %v", err)
	}
}
