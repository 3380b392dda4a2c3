//go:build unix

package session

import (
	"os/exec"
	"syscall"
)

// detach puts the background process in a session of its own: no terminal's hangup or interrupt
// reaches it.
func detach(cmd *exec.Cmd) { cmd.SysProcAttr = &syscall.SysProcAttr{Setsid: true} }
