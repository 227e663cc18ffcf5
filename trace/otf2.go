package trace

import "errors"

// WriteOTF2 writes t as an OTF2 archive.
func WriteOTF2(path string, t *Trace) error { return errors.New("OTF2 export: not yet") }
