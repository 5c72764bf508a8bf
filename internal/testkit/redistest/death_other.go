//go:build !linux

package redistest

import "os/exec"

// setDeathSignal is a no-op where the kernel offers no parent-death signal; Main and Cleanup
// still stop the server on every normal exit.
func setDeathSignal(cmd *exec.Cmd) {}
