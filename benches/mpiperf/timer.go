package mpiperf

import (
	"fmt"
	"math"
	"os"
	"runtime"
	"slices"

	"github.com/gompi/gompi/gompi"
	"github.com/gompi/gompi/hwtopo"
	"github.com/gompi/gompi/rdtsc"
	"github.com/gompi/gompi/sync/clock"
)

// openTimer returns this rank's clock by name (spec, "Timers"). For "tsc"
// rank 0 calibrates the counter and every rank converts its own counter
// with that rate: on one host all ranks then read one counter at one rate,
// and no rank spends a calibration. It is collective.
func openTimer(c *gompi.Comm, name string) (rdtsc.Clock, string, error) {
	if name != "tsc" {
		clk, err := rdtsc.ByName(name)
		if err != nil {
			return nil, "", fmt.Errorf("--timer %s: %w", name, err)
		}
		return clk, fmt.Sprintf("%s, resolution %.3g ns", name, clk.Resolution()*1e9), nil
	}
	cal := []float64{0, 0, 0} // rate, measured, error ppm; rate 0: failed
	var calErr error
	if c.Rank() == 0 {
		if t, err := rdtsc.TSC(); err == nil {
			k := t.Calibration()
			cal[0], cal[1], cal[2] = k.Rate, k.Measured, k.ErrPPM
		} else {
			calErr = err
		}
	}
	if err := gompi.Bcast(c, cal, 0); err != nil {
		return nil, "", err
	}
	if cal[0] == 0 {
		if calErr == nil {
			calErr = fmt.Errorf("rank 0 could not calibrate the counter")
		}
		return nil, "", fmt.Errorf("timer tsc: %w", calErr)
	}
	t := rdtsc.NewTSC(rdtsc.Calibration{Rate: cal[0], Measured: cal[1], ErrPPM: cal[2], Source: "rank 0's calibration"})
	return t, fmt.Sprintf("tsc, %.6f MHz calibrated on rank 0 (± %.3f ppm) and used by every rank, resolution %.3g ns",
		cal[0]/1e6, cal[2], t.Resolution()*1e9), nil
}

// counterRef reads the host's time-stamp counter, not through any rank's
// calibration or origin: ranks of one host that read it at one moment read
// the same value (where the counter agrees across CPUs, which the header
// reports). It is the reference of the start-spread test.
type counterRef struct {
	base uint64
	rate float64
}

func (r counterRef) Now() float64 { return float64(rdtsc.Start()-r.base) / r.rate }

// nsRef reads CLOCK_REALTIME in nanoseconds from a shared base: the
// reference where there is no counter.
type nsRef struct{ base int64 }

func (r nsRef) Now() float64 { return float64(rdtsc.Realtime().Ticks()-r.base) / 1e9 }

// reference returns the host-wide reference clock of the start-spread test
// and a description; rank 0's base is shared so every rank subtracts the
// same value. It is collective.
func reference(c *gompi.Comm) (clock.Source, string, error) {
	hasTSC := slices.Contains(rdtsc.Names(), "tsc")
	v := []float64{0, 0}
	note := ""
	if c.Rank() == 0 {
		if hasTSC {
			t, err := rdtsc.TSC()
			if err == nil {
				v[0], v[1] = float64(rdtsc.Start()), t.Rate()
				note = "the host's time-stamp counter, read raw by every rank"
				cc, err := crossCore()
				if err == nil {
					off, unc := cc.MaxOffset()
					warps := 0
					for _, o := range cc.CPUs {
						warps += o.Warps
					}
					note += fmt.Sprintf(" (CPUs agree: largest offset %.0f ± %.0f ticks, %d warps)", off, unc, warps)
				}
			}
		}
		if v[1] == 0 {
			v[0] = float64(rdtsc.Realtime().Ticks())
			note = "CLOCK_REALTIME (no usable counter)"
		}
	}
	if err := gompi.Bcast(c, v, 0); err != nil {
		return nil, "", err
	}
	if v[1] != 0 {
		return counterRef{base: uint64(v[0]), rate: v[1]}, note, nil
	}
	return nsRef{base: int64(math.Round(v[0]))}, note, nil
}

// crossCore runs rdtsc.CheckCrossCore and puts the process's threads back
// on the CPUs they had. The check busy-waits on two goroutines at once, so it
// needs GOMAXPROCS ≥ 2 (under golaunch a rank may have 1, and every round
// trip would wait for a preemption); and it pins threads, whose mask a
// thread the runtime starts meanwhile inherits: seen here, rank 0 left on one
// CPU afterwards, sharing it with rank 1.
func crossCore() (*rdtsc.CrossCore, error) {
	orig, aerr := hwtopo.Affinity(0)
	prev := runtime.GOMAXPROCS(0)
	runtime.GOMAXPROCS(max(prev, 2))
	cc, err := rdtsc.CheckCrossCore(500)
	runtime.GOMAXPROCS(prev)
	if aerr == nil {
		if berr := hwtopo.BindProcess(os.Getpid(), orig); berr != nil && err == nil {
			err = fmt.Errorf("restoring the affinity after the cross-core check: %w", berr)
		}
	}
	return cc, err
}
