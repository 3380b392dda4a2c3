//go:build linux || darwin || freebsd || netbsd || openbsd || dragonfly

package store

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"syscall"
)

// Lock is the cache's owner lock: an flock on a file in the cache folder, held from before the
// first store is opened (or created) until the index closes. The kernel drops it when the process
// dies, so a killed owner never leaves the cache locked.
type Lock struct{ f *os.File }

// ErrBusy says another process owns the cache.
var ErrBusy = errors.New("the cache is owned by another process")

// TakeLock takes the owner lock of the cache folder dir without waiting: ErrBusy when another process
// holds it.
func TakeLock(dir string) (*Lock, error) { return TakeNamedLock(dir, "owner.lock") }

// TakeNamedLock takes the lock on the file name in dir without waiting: ErrBusy when another process
// holds it. Other locks than the owner's (the background process's, for one) are named so.
func TakeNamedLock(dir, name string) (*Lock, error) {
	f, err := os.OpenFile(filepath.Join(dir, name), os.O_RDWR|os.O_CREATE, 0o600)
	if err != nil {
		return nil, fmt.Errorf("open the cache lock: %w", err)
	}
	for {
		err = syscall.Flock(int(f.Fd()), syscall.LOCK_EX|syscall.LOCK_NB)
		if err != syscall.EINTR {
			break
		}
	}
	if err != nil {
		f.Close()
		if errors.Is(err, syscall.EWOULDBLOCK) {
			return nil, ErrBusy
		}
		return nil, fmt.Errorf("lock the cache %s: %w", dir, err)
	}
	return &Lock{f: f}, nil
}

// Release gives the cache up; the lock file stays, since removing it while another process waits
// to lock it would let two owners in.
func (l *Lock) Release() {
	if l != nil && l.f != nil {
		l.f.Close() // closing drops the flock
		l.f = nil
	}
}
