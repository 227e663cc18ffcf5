package trace

import (
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"time"
)

// Names of the files in a trace directory.
const (
	ManifestName = "manifest.json"
	filePattern  = "rank-%05d.gtr"
)

// RankFile returns the name of rank's file in a trace directory.
func RankFile(dir string, rank int) string { return filepath.Join(dir, fmt.Sprintf(filePattern, rank)) }

// ErrIncomplete is wrapped by ReadDir's error when a rank's file is missing.
var ErrIncomplete = errors.New("trace directory is incomplete")

// Manifest describes the job a trace directory holds; rank 0 writes it at
// Finalize.
type Manifest struct {
	Version int       `json:"version"`
	Ranks   int       `json:"ranks"`
	Hosts   []string  `json:"hosts"` // by world rank
	Clock   string    `json:"clock"` // the clock source of the timestamps ("tsc", "monotonic")
	Start   time.Time `json:"start"` // wall-clock time of rank 0's Init
	Command []string  `json:"command"`
	Backend string    `json:"backend"`
}

// WriteManifest writes m into dir.
func WriteManifest(dir string, m Manifest) error {
	m.Version = Version
	b, err := json.MarshalIndent(m, "", "  ")
	if err != nil {
		return err
	}
	if err := os.WriteFile(filepath.Join(dir, ManifestName), append(b, '\n'), 0o644); err != nil {
		return fmt.Errorf("trace: %w", err)
	}
	return nil
}

// ErrDir is wrapped by CheckDir's error.
var ErrDir = errors.New("trace directory is not writable")

// CheckDir makes dir if needed and checks that a file can be created in it;
// it returns dir as an absolute path. Launchers call it before any rank
// starts, so that an unwritable directory is an error at once.
func CheckDir(dir string) (string, error) {
	abs, err := filepath.Abs(dir)
	if err == nil {
		err = os.MkdirAll(abs, 0o755)
	}
	if err == nil {
		var f *os.File
		if f, err = os.CreateTemp(abs, ".gompi-trace-check-*"); err == nil {
			f.Close()
			err = os.Remove(f.Name())
		}
	}
	if err != nil {
		return "", fmt.Errorf("%w: %s: %v (choose a directory you can write)", ErrDir, dir, err)
	}
	return abs, nil
}

// ReadManifest reads dir's manifest.
func ReadManifest(dir string) (Manifest, error) {
	var m Manifest
	b, err := os.ReadFile(filepath.Join(dir, ManifestName))
	if err != nil {
		return m, fmt.Errorf("trace: %w", err)
	}
	if err := json.Unmarshal(b, &m); err != nil {
		return m, fmt.Errorf("trace: %s: %w", filepath.Join(dir, ManifestName), err)
	}
	return m, nil
}

// Trace is a whole job's trace: every rank's events on one time axis, and
// the messages between them.
type Trace struct {
	Dir      string
	Manifest Manifest
	Ranks    []*RankTrace // by world rank
	Messages []Message
	Match    MatchStats
	Clock    ClockReport
	Dropped  uint64 // records lost, all ranks together
	// Comms gives the members of each communicator other than the world
	// (from the ranks' files): Comms[id][i] is the world rank of its rank i.
	Comms map[uint32][]int32
}

// Event returns the event x names.
func (t *Trace) Event(x EventRef) *Event { return &t.Ranks[x.Rank].Events[x.Index] }

// ReadDir reads the trace directory dir (a manifest and one file per rank):
// it decodes every file, matches sends to receives (Match), and puts all
// events on one time axis (Align). It holds every event; OpenStream reads
// a large trace for export without doing so.
func ReadDir(dir string) (*Trace, error) {
	t, err := readRanks(dir, ReadFile)
	if err != nil {
		return nil, err
	}
	t.Messages, t.Match = Match(t.Ranks)
	t.Clock = Align(t.Ranks, t.Messages)
	return t, nil
}

// readRanks reads dir's manifest and every rank's file with read (ReadFile,
// or Skim), checking that the files make one job.
func readRanks(dir string, read func(string) (*RankTrace, error)) (*Trace, error) {
	m, err := ReadManifest(dir)
	if err != nil {
		// Without a manifest (the job stopped before rank 0's Finalize) the
		// ranks are found from rank 0's file.
		rt, ferr := Skim(RankFile(dir, 0))
		if ferr != nil {
			return nil, fmt.Errorf("%w: %v; %v", ErrIncomplete, err, ferr)
		}
		m = Manifest{Ranks: rt.Size, Clock: rt.Info["clock"]}
	}
	if m.Ranks <= 0 {
		return nil, fmt.Errorf("trace: %s: %w: the manifest says %d ranks", dir, ErrFormat, m.Ranks)
	}
	t := &Trace{Dir: dir, Manifest: m, Ranks: make([]*RankTrace, m.Ranks), Comms: map[uint32][]int32{}}
	for r := range t.Ranks {
		rt, err := read(RankFile(dir, r))
		if errors.Is(err, os.ErrNotExist) {
			return nil, fmt.Errorf("%w: no file for rank %d of %d (%v)", ErrIncomplete, r, m.Ranks, err)
		}
		if err != nil {
			return nil, err
		}
		if rt.Rank != r || rt.Size != m.Ranks {
			return nil, &FormatError{File: rt.Path, Offset: 16, Detail: fmt.Sprintf("file says rank %d of %d, want rank %d of %d", rt.Rank, rt.Size, r, m.Ranks)}
		}
		t.Ranks[r] = rt
		t.Dropped += rt.Dropped
		for id, m := range rt.Comms {
			if _, ok := t.Comms[id]; !ok {
				t.Comms[id] = m
			}
		}
	}
	return t, nil
}

// Summary is what reading a trace found, for a report.
type Summary struct {
	Manifest Manifest
	Ranks    int
	Events   int
	Messages int
	Match    MatchStats
	Clock    ClockReport
	Dropped  uint64
}

// Summary returns what reading t found.
func (t *Trace) Summary() Summary {
	n := 0
	for _, rt := range t.Ranks {
		n += len(rt.Events)
	}
	return Summary{Manifest: t.Manifest, Ranks: len(t.Ranks), Events: n, Messages: len(t.Messages), Match: t.Match,
		Clock: t.Clock, Dropped: t.Dropped}
}
