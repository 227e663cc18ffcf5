// Package trace records what every rank of a gompi job does, and reads it
// back on one time axis.
//
// # Recording
//
// The runtime (package gompi, when tracing is switched on with golaunch
// --trace DIR or GOMPI_TRACE=DIR) writes one file per rank with a Writer:
// fixed-size binary Records (RecordSize bytes: routine, start and end on the
// rank's fast clock, communicator id, peer as a world rank, tag, bytes,
// request id, receive status, call site), a string table (call sites
// "function file:line", algorithm names), the names of the routine codes,
// and clock samples (the rank's offset to rank 0 measured at Init and at
// Finalize). Rank 0 also writes manifest.json (Manifest). The layout is
// described at the top of format.go; Version changes when it changes.
//
// A nonblocking call is two records with the same Req: the call that posted
// it (Isend, Irecv, Start of a persistent request, Ibcast…) and the Wait or
// Test that completed it (inside Waitall & co. each request's completion is
// a Wait record of its own).
//
// # Reading (the API the exporters and the analyser build on)
//
//	t, err := trace.ReadDir(dir)     // every rank, matched, on one time axis
//	for r, rt := range t.Ranks {     // rt.Rank == r (world rank)
//		for i := range rt.Events {
//			e := &rt.Events[i]       // e.Record: raw fields; e.T0, e.T1: seconds on the job's axis
//			rt.Name(e)               // routine name: "Send", "Irecv", "Wait", "Allreduce", …
//			rt.Site(e)               // "main.ring /path/main.go:42"
//			rt.String(e.Algo)        // collective algorithm, "" when none
//		}
//	}
//	t.Dropped, t.Clock.Moved, t.Clock.MaxShift, t.Clock.MaxErr
//	t.Comms[e.Comm]                  // a communicator's members: world rank of each of its ranks
//
// ReadDir holds every event. To export a trace of any length, stream it:
//
//	s, err := trace.OpenStream(dir) // checks, matches and repairs, holding only what is in flight
//	err = s.WritePerfetto(w)        // or s.WriteOTF2("job.otf2"): the in-memory writers' output
//	s.Summary()                     // what ReadDir's Trace.Summary says
//
// ReadFile and Decode read a single rank's file; Skim reads all of it but
// the records. Every malformed input gives
// an error wrapping ErrFormat, a *FormatError with the file and byte offset;
// a missing rank gives ErrIncomplete.
//
// # Matching (send → receive)
//
//	msgs, stats := trace.Match(t.Ranks)   // ReadDir has done it: t.Messages, t.Match
//	m := msgs[k]
//	t.Event(m.Send)      // the call that posted the send (Send, Isend, Start, Sendrecv)
//	t.Event(m.SendDone)  // the call that completed it (the same for blocking forms, else Wait/Test)
//	t.Event(m.Recv)      // the call that posted the receive (Recv, Irecv, Start, Sendrecv, Mprobe)
//	t.Event(m.RecvDone)  // the call that completed it
//
// Messages are matched as MPI orders them: per communicator, source,
// destination and tag, in posting order, with each receive's actual source
// and tag taken from its status, so AnySource, AnyTag and persistent
// requests match what they really received.
//
// # One time axis
//
// Align (called by ReadDir) maps each rank's clock onto rank 0's with a
// straight line through its clock samples (offset and drift), then repairs
// what the residual error leaves: a receive that would complete before its
// send began is moved later, with everything after it on its rank. The
// ClockReport says how many events moved and by how much, and the error
// bound of the clock models. The repair is one sweep over the messages'
// ends in time order (repairClocks), shared with the streamed export.
package trace
