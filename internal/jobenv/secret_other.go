//go:build !linux

package jobenv

import "os"

// SecretFile puts secret in a temporary file that is removed at once (only
// the descriptor keeps it), readable by this user only.
func SecretFile(secret []byte) (*os.File, error) {
	f, err := os.CreateTemp("", "gompi-secret-")
	if err != nil {
		return nil, err
	}
	os.Remove(f.Name())
	if _, err := f.Write(secret); err != nil {
		f.Close()
		return nil, err
	}
	return f, nil
}
