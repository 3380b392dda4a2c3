//go:build !(linux || darwin || freebsd || netbsd || openbsd || dragonfly)

package store

import "errors"

// Lock has no owner lock on this system: bleve's own lock (bolt_timeout) still keeps a
// second process out of the lexical index, which then works in memory.
type Lock struct{}

// ErrBusy says another process owns the cache; never returned on this system.
var ErrBusy = errors.New("the cache is owned by another process")

// TakeLock takes no lock here.
func TakeLock(string) (*Lock, error) { return &Lock{}, nil }

// TakeNamedLock takes no lock here.
func TakeNamedLock(string, string) (*Lock, error) { return &Lock{}, nil }

// Release does nothing here.
func (*Lock) Release() {}
