package redistest

import (
	"os/exec"
	"syscall"
)

// setDeathSignal makes the kernel kill the server when the test binary dies, so that a panic or
// a -timeout in a test leaks no process.
func setDeathSignal(cmd *exec.Cmd) {
	cmd.SysProcAttr = &syscall.SysProcAttr{Pdeathsig: syscall.SIGKILL}
}
