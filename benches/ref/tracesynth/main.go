// Command tracesynth writes a synthetic trace directory, to measure what
// reading and exporting a large trace costs (docs/PERFORMANCE.md, Tracing):
// N ranks in a ring, each call a Send to the next rank or a Recv from the
// previous one, EVENTS records per rank, with clock samples at both ends.
//
//	go run ./benches/ref/tracesynth --ranks 64 --events 100000 --dir /tmp/big
//	/usr/bin/time -v goexpert timeline /tmp/big -o /tmp/big.json
package main

import (
	"log"
	"time"

	"github.com/gompi/gompi/trace"
	"github.com/spf13/pflag"
)

func main() {
	ranks := pflag.Int("ranks", 64, "ranks")
	events := pflag.Int("events", 100000, "records per rank (half sends, half receives)")
	dir := pflag.String("dir", "/tmp/tracesynth", "the trace directory to write")
	pflag.Parse()
	abs, err := trace.CheckDir(*dir)
	if err != nil {
		log.Fatal(err)
	}
	routines := []string{1: "Send", 2: "Recv"}
	strs := trace.NewStrings()
	site := strs.ID("main.ring /src/ring.go:42")
	for r := 0; r < *ranks; r++ {
		w, err := trace.Create(trace.RankFile(abs, r), r, *ranks, map[string]string{"host": "synth", "clock": "monotonic"},
			routines, strs, trace.WriterOptions{})
		if err != nil {
			log.Fatal(err)
		}
		w.Clock(trace.ClockSample{Phase: "init", Local: 0, Offset: float64(r * 1000), Err: 50})
		next, prev := int32((r+1)%*ranks), int32((r+*ranks-1)%*ranks)
		for i := 0; i < *events/2; i++ {
			t := int64(i) * 2000
			w.Write(&trace.Record{Routine: 1, Site: site, Start: t, End: t + 300, Comm: 1, Peer: next, Tag: 0, Bytes: 8,
				StSource: trace.PeerNone, StTag: trace.TagAny})
			w.Write(&trace.Record{Routine: 2, Site: site, Start: t + 400, End: t + 1500, Comm: 1, Peer: prev, Tag: 0, Bytes: 8,
				StSource: prev, StTag: 0, StCount: 8})
		}
		w.Clock(trace.ClockSample{Phase: "finalize", Local: int64(*events) * 1000, Offset: float64(r*1000 + r), Err: 50})
		if err := w.Close(); err != nil {
			log.Fatal(err)
		}
	}
	m := trace.Manifest{Ranks: *ranks, Clock: "monotonic", Start: time.Now().UTC(), Command: []string{"tracesynth"}, Backend: "synthetic"}
	if err := trace.WriteManifest(abs, m); err != nil {
		log.Fatal(err)
	}
}
