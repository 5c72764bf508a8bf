//go:build unix

package redistest

import (
	"errors"
	"os"
	"syscall"
)

// lockPort takes the lock of file without waiting: ok is false when another process, or
// another start in this one, holds it. flock locks belong to an open file: each call opens the
// file anew, so two starts in one process exclude each other too; Go opens files close-on-exec,
// so the servers it starts never inherit a lock.
func lockPort(file string) (f *os.File, ok bool, err error) {
	f, err = os.OpenFile(file, os.O_RDWR|os.O_CREATE, 0o600)
	if err != nil {
		return nil, false, err
	}
	if err := syscall.Flock(int(f.Fd()), syscall.LOCK_EX|syscall.LOCK_NB); err != nil {
		_ = f.Close()
		if errors.Is(err, syscall.EWOULDBLOCK) {
			return nil, false, nil
		}
		return nil, false, err
	}
	return f, true, nil
}
