//go:build unix

package bench

import (
	"os"
	"runtime"
	"syscall"
)

// maxRSS is the peak resident memory of a finished child process, in bytes.
func maxRSS(ps *os.ProcessState) uint64 {
	ru, ok := ps.SysUsage().(*syscall.Rusage)
	if !ok {
		return 0
	}
	if runtime.GOOS == "darwin" {
		return uint64(ru.Maxrss) // bytes there, kilobytes elsewhere
	}
	return uint64(ru.Maxrss) * 1024
}
