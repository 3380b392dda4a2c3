package bench

import (
	"os"
	"os/exec"
	"runtime"
	"testing"
)

// TestFollowPeakMeasuresTheChild starts a small child from a process that has touched 256 MiB: the
// child's peak read from /proc is its own few MiB, where the kernel's rusage reports the parent's.
func TestFollowPeakMeasuresTheChild(t *testing.T) {
	if _, err := os.Stat("/proc/self/status"); err != nil {
		t.Skip("no /proc here")
	}
	big := make([]byte, 256<<20)
	for i := range big {
		big[i] = byte(i)
	}
	cmd := exec.Command("sleep", "0.3")
	if err := cmd.Start(); err != nil {
		t.Skip(err)
	}
	peak := followPeak(cmd.Process.Pid)
	if err := cmd.Wait(); err != nil {
		t.Fatal(err)
	}
	got := peak()
	runtime.KeepAlive(big)
	if got == 0 || got > 64<<20 {
		t.Errorf("the child's peak read from /proc is %d bytes, want a few MiB", got)
	}
	t.Logf("child: %d KiB from /proc, %d KiB from rusage", got>>10, maxRSS(cmd.ProcessState)>>10)
}

func TestVmHWM(t *testing.T) {
	status := []byte("Name:\tctxmap\nVmPeak:\t  900 kB\nVmHWM:\t   1234 kB\nVmRSS:\t  1000 kB\n")
	if got := vmHWM(status); got != 1234*1024 {
		t.Errorf("vmHWM = %d, want %d", got, 1234*1024)
	}
	if got := vmHWM([]byte("Name:\tzombie\nState:\tZ (zombie)\n")); got != 0 {
		t.Errorf("vmHWM of an exited process = %d, want 0", got)
	}
}
