//go:build unix

package session

import (
	"os/exec"
	"syscall"
)

// detach puts the background process in a session of its own: no terminal's hangup or interrupt
// reaches it.
func detach(cmd *exec.Cmd) { cmd.SysProcAttr = &syscall.SysProcAttr{Setsid: true} }

// alive says whether the process pid runs.
func alive(pid int) bool { return pid > 0 && syscall.Kill(pid, 0) == nil }
