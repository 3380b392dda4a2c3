package session

import (
	"fmt"
	"net"
	"os"
	"path/filepath"
	"syscall"

	"golang.org/x/sys/unix"
)

// ownedByUs checks, before a socket is dialled, that the folder holding it is the user's own and
// nobody else's to write: otherwise another user may have put a socket there.
func ownedByUs(sock string) error {
	dir := filepath.Dir(sock)
	fi, err := os.Stat(dir)
	if err != nil {
		return nil // nothing to dial: the caller finds no process
	}
	st, ok := fi.Sys().(*syscall.Stat_t)
	if !ok {
		return nil
	}
	if uid := os.Getuid(); int(st.Uid) != uid {
		return fmt.Errorf("%w: the folder %s belongs to uid %d, not to you (uid %d); set XDG_CACHE_HOME to a folder of your own", ErrForeign, dir, st.Uid, uid)
	}
	if fi.Mode().Perm()&0o022 != 0 {
		return fmt.Errorf("%w: others may write in the folder %s (mode %v); make it yours alone (chmod 700)", ErrForeign, dir, fi.Mode().Perm())
	}
	return nil
}

// peerIsUs checks that the process at the other end of c runs as this user (SO_PEERCRED).
func peerIsUs(c net.Conn) error {
	uc, ok := c.(*net.UnixConn)
	if !ok {
		return nil
	}
	raw, err := uc.SyscallConn()
	if err != nil {
		return fmt.Errorf("%w: cannot tell who answers: %v", ErrForeign, err)
	}
	var cred *unix.Ucred
	var credErr error
	if err := raw.Control(func(fd uintptr) { cred, credErr = unix.GetsockoptUcred(int(fd), unix.SOL_SOCKET, unix.SO_PEERCRED) }); err != nil {
		credErr = err
	}
	if credErr != nil {
		return fmt.Errorf("%w: cannot tell who answers: %v", ErrForeign, credErr)
	}
	if uid := os.Getuid(); int(cred.Uid) != uid {
		return fmt.Errorf("%w: the process answering (pid %d) runs as uid %d, not as you (uid %d)", ErrForeign, cred.Pid, cred.Uid, uid)
	}
	return nil
}
