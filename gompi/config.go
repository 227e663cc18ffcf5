package gompi

import (
	"os"

	"github.com/gompi/gompi/internal/jobenv"
)

// config is what the environment asks of the runtime above the engine,
// read once, at Init or at the start of Run, and handed down from there;
// the engine reads its own variables at the same moment (core's Options).
// A variable changed after that has no effect on the job.
type config struct {
	timer      string // GOMPI_TIMER: the clock Wtime reads, "" for the default
	trace      string // GOMPI_TRACE: the directory of the trace files, "" for none
	cpuProfile string // GOMPI_CPUPROFILE: the path prefix of each rank's CPU profile, "" for none
	rmaDirect  bool   // GOMPI_RMA_SHM is not "0": windows on one host map each other's memory
}

func configFromEnv() config {
	return config{
		timer:      os.Getenv(jobenv.Timer),
		trace:      os.Getenv(jobenv.Trace),
		cpuProfile: os.Getenv(jobenv.CPUProfile),
		rmaDirect:  os.Getenv(jobenv.RMAShm) != "0",
	}
}
