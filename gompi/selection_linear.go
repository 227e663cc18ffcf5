package gompi

import "github.com/gompi/gompi/coll"

// preferLinearLarge puts "linear" (one point-to-point transfer per reader
// from the root) first for Scatter with blocks of 128-512 KiB and for Bcast
// of 256-512 KiB, on 4 to 8 ranks (tierFirst, after the rules of "shm"
// that preferCMAWhereFaster puts there: Bcast on 8 ranks up to 256 KiB
// keeps "shm"). Measured on this 2-CPU machine, 4 and 8 ranks
// oversubscribed (sidebyside --tune --ops bcast,scatter --algs
// linear,cma,cma_pairwise --n 4,8 --sizes 131072,262144,524288 --reps 5,
// median, load 3.3-5.8; docs/PERFORMANCE.md, "Bcast and Scatter by linear,
// and the chain pushed"): Scatter 4 ranks 128/256/512 KiB linear
// 17.7/30.9/67.8 µs against cma_pairwise (the table's choice) 34.6/43.0/85.9
// and cma 28.1/29.2/63.2; 8 ranks 22.7/36.4/53.0 against 56.3/85.3/122 and
// 34.6/48.8/88.5. Bcast 4 ranks 256/512 KiB linear 36.7/59.2 against cma
// (the table's choice) 56.4/129; 8 ranks 512 KiB 69.2 against 162. The
// point-to-point path puts huge pages under its sources from 16 KiB, the
// collectives' single copy only from 1 MiB (collHugeMin). 5-7 ranks were
// not measured and go with 4 and 8; 3 ranks and more than 8 (the root's
// turn through every reader) were not measured and keep their rules.
func preferLinearLarge() error {
	if err := prefer(coll.OpScatter, tierFirst, coll.Rule{MinRanks: 4, MaxRanks: 8, MinBytes: 128 << 10, MaxBytes: 512 << 10, Use: []string{"linear"}}); err != nil {
		return err
	}
	return prefer(coll.OpBcast, tierFirst, coll.Rule{MinRanks: 4, MaxRanks: 8, MinBytes: 256 << 10, MaxBytes: 512 << 10, Use: []string{"linear"}})
}
