// Command hello prints one line per rank: "rank R of N on HOST".
//
//	golaunch -n 4 ./examples/hello
package main

import (
	"fmt"
	"log"

	"github.com/gompi/gompi/gompi"
)

func main() {
	if err := gompi.Init(); err != nil {
		log.Fatal(err)
	}
	defer gompi.Finalize()
	world := gompi.World()
	fmt.Printf("rank %d of %d on %s\n", world.Rank(), world.Size(), gompi.Host())
}
