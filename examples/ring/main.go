// Command ring passes a token around all ranks: rank 0 sends it to rank 1,
// rank 1 to rank 2, ..., the last rank back to rank 0, --iterations times.
// Each rank adds one to the token, so rank 0 can check that it went all the
// way round.
//
//	golaunch -n 64 ./examples/ring --iterations 10
package main

import (
	"fmt"
	"log"
	"os"

	"github.com/gompi/gompi/gompi"
	"github.com/spf13/pflag"
)

func main() {
	iterations := pflag.Int("iterations", 10, "times the token goes round")
	pflag.Parse()
	if err := gompi.Init(); err != nil {
		log.Fatal(err)
	}
	defer gompi.Finalize()
	if err := ring(gompi.World(), *iterations); err != nil {
		fmt.Fprintln(os.Stderr, err)
		gompi.Abort(1)
	}
}

func ring(c *gompi.Comm, iterations int) error {
	me, n := c.Rank(), c.Size()
	next, prev := (me+1)%n, (me-1+n)%n
	token := []int64{0}
	start := gompi.Wtime()
	for it := 0; it < iterations; it++ {
		if me == 0 {
			token[0] = int64(it * n)
			if err := gompi.Send(c, token, next, 0); err != nil {
				return err
			}
		}
		if _, err := gompi.Recv(c, token, prev, 0); err != nil {
			return err
		}
		if me != 0 {
			token[0]++
			if err := gompi.Send(c, token, next, 0); err != nil {
				return err
			}
		} else if want := int64(it*n + n - 1); token[0] != want {
			return fmt.Errorf("rank 0: token came back as %d, want %d", token[0], want)
		}
	}
	if me == 0 {
		el := gompi.Wtime() - start
		fmt.Printf("ring of %d ranks: %d rounds in %.3f ms (%.2f us per hop)\n",
			n, iterations, el*1e3, el*1e6/float64(iterations*n))
	}
	return nil
}
