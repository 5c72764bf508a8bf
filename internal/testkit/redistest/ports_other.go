//go:build !unix

package redistest

import "os"

// lockPort reserves nothing where flock is unavailable: waitReady's identity check still
// refuses a port another server answers on.
func lockPort(string) (*os.File, bool, error) { return nil, true, nil }
