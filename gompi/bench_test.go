//go:build !mpi && !mpich

package gompi_test

import (
	"testing"

	"github.com/gompi/gompi/gompi"
)

// BenchmarkPingPong measures one-way latency between two in-process ranks
// (goroutines on the same shared-memory queues the processes use).
func BenchmarkPingPong(b *testing.B) {
	for _, size := range []int{0, 8, 1024, 16 << 10, 64 << 10, 128 << 10, 1 << 20, 4 << 20} {
		b.Run(sizeName(size), func(b *testing.B) {
			buf := [2][]byte{make([]byte, size), make([]byte, size)}
			err := gompi.Run(2, func(c *gompi.Comm) error {
				me := c.Rank()
				b.ResetTimer()
				for i := 0; i < b.N; i++ {
					if me == 0 {
						if err := c.Send(buf[me], 1, 0); err != nil {
							return err
						}
						if _, err := c.Recv(buf[me], 1, 0); err != nil {
							return err
						}
					} else {
						if _, err := c.Recv(buf[me], 0, 0); err != nil {
							return err
						}
						if err := c.Send(buf[me], 0, 0); err != nil {
							return err
						}
					}
				}
				return nil
			})
			if err != nil {
				b.Fatal(err)
			}
			b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(2*b.N), "ns/one-way")
			if size > 0 {
				b.SetBytes(int64(2 * size))
			}
		})
	}
}

func sizeName(n int) string {
	switch {
	case n >= 1<<20:
		return itoa(n>>20) + "MiB"
	case n >= 1<<10:
		return itoa(n>>10) + "KiB"
	}
	return itoa(n) + "B"
}

func itoa(n int) string {
	if n == 0 {
		return "0"
	}
	var b []byte
	for ; n > 0; n /= 10 {
		b = append([]byte{byte('0' + n%10)}, b...)
	}
	return string(b)
}

// BenchmarkBarrier times barriers between two in-process ranks, per
// algorithm.
func BenchmarkBarrier(b *testing.B) {
	for _, alg := range []string{"dissemination", "shm"} {
		b.Run(alg, func(b *testing.B) {
			b.ReportAllocs()
			err := gompi.Run(2, func(c *gompi.Comm) error {
				b.ResetTimer()
				for i := 0; i < b.N; i++ {
					if err := c.Barrier(gompi.WithAlgorithm(alg)); err != nil {
						return err
					}
				}
				return nil
			})
			if err != nil {
				b.Fatal(err)
			}
		})
	}
}

// BenchmarkCollectiveOverhead: the cost of a collective call that waits for
// no one (one rank): argument checks, algorithm choice, the algorithm.
func BenchmarkCollectiveOverhead(b *testing.B) {
	for _, alg := range []string{"", "shm", "dissemination"} {
		name := alg
		if name == "" {
			name = "default"
		}
		b.Run("barrier/"+name, func(b *testing.B) {
			b.ReportAllocs()
			var opts []gompi.CollOption
			if alg != "" {
				opts = append(opts, gompi.WithAlgorithm(alg))
			}
			gompi.Run(1, func(c *gompi.Comm) error {
				b.ResetTimer()
				for i := 0; i < b.N; i++ {
					c.Barrier(opts...)
				}
				return nil
			})
		})
	}
	b.Run("allreduce-8B/default", func(b *testing.B) {
		b.ReportAllocs()
		gompi.Run(1, func(c *gompi.Comm) error {
			in, out := []float64{1}, []float64{0}
			b.ResetTimer()
			for i := 0; i < b.N; i++ {
				gompi.Allreduce(c, in, out, gompi.Sum[float64]())
			}
			return nil
		})
	})
	// The nonblocking form on two in-process ranks, waited at once: what
	// running the algorithm on its own goroutine costs on top (Wait parks
	// on the request instead of spinning beside that goroutine).
	for _, nonblocking := range []bool{false, true} {
		name := "allreduce-8B/2-ranks"
		if nonblocking {
			name = "iallreduce-8B+wait/2-ranks"
		}
		b.Run(name, func(b *testing.B) {
			b.ReportAllocs()
			gompi.Run(2, func(c *gompi.Comm) error {
				in, out := []float64{1}, []float64{0}
				if c.Rank() == 0 {
					b.ResetTimer()
				}
				for i := 0; i < b.N; i++ {
					if !nonblocking {
						if err := gompi.Allreduce(c, in, out, gompi.Sum[float64]()); err != nil {
							return err
						}
						continue
					}
					req, err := gompi.Iallreduce(c, in, out, gompi.Sum[float64]())
					if err != nil {
						return err
					}
					if _, err := req.Wait(); err != nil {
						return err
					}
				}
				return nil
			})
		})
	}
}

// BenchmarkMatchSelf: the matching path alone, on one rank and one thread,
// so that the figure does not depend on another thread being scheduled: a
// receive is posted, then a message to self arrives and matches it
// ("posted"), or the message comes first and waits as unexpected until the
// receive takes it ("unexpected").
func BenchmarkMatchSelf(b *testing.B) {
	for _, order := range []string{"posted", "unexpected"} {
		b.Run(order, func(b *testing.B) {
			b.ReportAllocs()
			err := gompi.Run(1, func(c *gompi.Comm) error {
				in, out := make([]byte, 8), make([]byte, 8)
				b.ResetTimer()
				for i := 0; i < b.N; i++ {
					if order == "unexpected" {
						if err := c.Send(out, 0, 1); err != nil {
							return err
						}
					}
					r, err := c.Irecv(in, 0, 1)
					if err != nil {
						return err
					}
					if order == "posted" {
						if err := c.Send(out, 0, 1); err != nil {
							return err
						}
					}
					if _, err := r.Wait(); err != nil {
						return err
					}
				}
				return nil
			})
			if err != nil {
				b.Fatal(err)
			}
		})
	}
}

// BenchmarkShmRooted times the rooted collectives the OSU way (each call
// followed by a barrier) between in-process ranks: with "shm" the root posts
// and goes on (Bcast, Scatter) or the contributors do (Gather, Reduce);
// "binomial" is the point-to-point comparison. ns/op is one call and its
// barrier, on rank 0 (the root).
func BenchmarkShmRooted(b *testing.B) {
	for _, n := range []int{2, 4} {
		for _, alg := range []string{"shm", "binomial"} {
			for _, op := range []string{"bcast", "gather", "scatter", "reduce"} {
				b.Run(op+"-8B/"+alg+"/n="+itoa(n), func(b *testing.B) {
					b.ReportAllocs()
					err := gompi.Run(n, func(c *gompi.Comm) error {
						with := gompi.WithAlgorithm(alg)
						one, all := make([]byte, 8), make([]byte, 8*n)
						in, out := []float64{1}, []float64{0}
						call := map[string]func() error{
							"bcast":   func() error { return c.Bcast(one, 0, with) },
							"gather":  func() error { return c.Gather(one, all, 0, with) },
							"scatter": func() error { return c.Scatter(all, one, 0, with) },
							"reduce":  func() error { return gompi.Reduce(c, in, out, gompi.Sum[float64](), 0, with) },
						}[op]
						return osuLoop(b, c, call)
					})
					if err != nil {
						b.Fatal(err)
					}
				})
			}
		}
	}
}

// BenchmarkCMALarge: the large-data collectives on two in-process ranks,
// 128 KiB per block, single copy ("cma") against the scratch-area copy
// ("shm", where it exists) and the point-to-point algorithm the table used
// before (a regression of the single-copy path shows as cma catching up
// with the others). In one process process_vm_readv reads the process's own
// memory, through the same kernel path as a peer's.
func BenchmarkCMALarge(b *testing.B) {
	const n, m = 2, 128 << 10
	for _, tc := range []struct {
		op   string
		algs []string
	}{
		{"bcast", []string{"cma", "shm", "binomial"}},
		{"scatter", []string{"cma", "linear"}},
		{"gather", []string{"cma", "linear"}},
		{"allgather", []string{"cma", "shm", "ring"}},
		{"alltoall", []string{"cma", "pairwise"}},
	} {
		for _, alg := range tc.algs {
			b.Run(tc.op+"-128KiB/"+alg, func(b *testing.B) {
				b.ReportAllocs()
				b.SetBytes(m)
				err := gompi.Run(n, func(c *gompi.Comm) error {
					with := gompi.WithAlgorithm(alg)
					one, all, all2 := make([]byte, m), make([]byte, n*m), make([]byte, n*m)
					call := map[string]func() error{
						"bcast":     func() error { return c.Bcast(one, 0, with) },
						"scatter":   func() error { return c.Scatter(all, one, 0, with) },
						"gather":    func() error { return c.Gather(one, all, 0, with) },
						"allgather": func() error { return c.Allgather(one, all, with) },
						"alltoall":  func() error { return c.Alltoall(all, all2, with) },
					}[tc.op]
					if c.Rank() == 0 {
						b.ResetTimer()
					}
					for i := 0; i < b.N; i++ {
						if err := call(); err != nil {
							return err
						}
					}
					return c.Barrier()
				})
				if err != nil {
					b.Fatal(err)
				}
			})
		}
	}
}
