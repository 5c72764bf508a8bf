package redistest

import (
	"fmt"
	"net"
	"os"
	"path/filepath"
	"strconv"
)

// Ports. A port the kernel reports free is free only until someone binds it: concurrent starts,
// in this test binary and in others running at the same time (go test runs packages in
// parallel), may draw the same one. Two safeguards make that harmless:
//
//   - a test-kit process reserves each port it gives a server (client and cluster bus port)
//     with a lock file, held until the server is stopped (a killed cluster node's until its
//     cluster is stopped, since clients may still dial it). Other test-kit processes, and other
//     starts in this one, skip a reserved port. The kernel drops the lock when the process
//     dies, however it dies.
//   - a started server counts as ready only once the server answering on its port says it is
//     the one started (waitReady): a port taken by anything else, a test kit of another
//     checkout included, is then seen, and the server restarted on other ports.

// reservedPort is a loopback port reserved for a server of this process.
type reservedPort struct {
	port int
	lock *os.File // the port's lock file, locked by this process; nil where locks are unavailable
}

// portLockDir is where the lock files of reserved ports are, one empty file per port ever
// reserved on this machine by this user. The files are never removed: removing a lock file
// while another process opens it would let two processes hold "the" lock.
func portLockDir() string {
	return filepath.Join(os.TempDir(), "rankgen-redistest-ports-"+strconv.Itoa(os.Getuid()))
}

// reservePort returns a loopback port that is free now and reserved by no other start.
func reservePort() (*reservedPort, error) {
	dir := portLockDir()
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return nil, fmt.Errorf("port reservations: %w", err)
	}
	for range 1000 {
		// The listener keeps the port from the kernel's other callers while it is locked.
		l, err := net.Listen("tcp", "127.0.0.1:0")
		if err != nil {
			return nil, err
		}
		port := l.Addr().(*net.TCPAddr).Port
		lock, ok, err := lockPort(filepath.Join(dir, strconv.Itoa(port)))
		_ = l.Close()
		if err != nil {
			return nil, fmt.Errorf("port reservations: %w", err)
		}
		if ok {
			return &reservedPort{port: port, lock: lock}, nil
		}
	}
	return nil, fmt.Errorf("port reservations: every free port the kernel offered was reserved (see %s)", dir)
}

// release gives the port back. It is idempotent.
func (p *reservedPort) release() {
	if p != nil && p.lock != nil {
		_ = p.lock.Close() // closing the only descriptor drops its lock
		p.lock = nil
	}
}
