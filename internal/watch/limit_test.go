package watch

import (
	"fmt"
	"os"
	"os/exec"
	"strings"
	"syscall"
	"testing"
	"time"
)

// The kernel's inotify limits are per user namespace, so a child process in a namespace of its own can
// lower them and hit them for real without touching the machine's settings.
const limitEnv = "CTXMAP_WATCH_LIMIT_CHILD"

// inNamespace runs the named test again in a new user namespace with the given limit set, and fails
// with the child's output if the child fails.
func inNamespace(t *testing.T, test, sysctl string, limit int) bool {
	t.Helper()
	if os.Getenv(limitEnv) != "" {
		if err := os.WriteFile("/proc/sys/user/"+sysctl, []byte(fmt.Sprint(limit)), 0); err != nil {
			t.Fatalf("lower %s in the child namespace: %v", sysctl, err)
		}
		return true
	}
	cmd := exec.Command(os.Args[0], "-test.run=^"+test+"$", "-test.v")
	cmd.Env = append(os.Environ(), limitEnv+"=1")
	cmd.SysProcAttr = &syscall.SysProcAttr{
		Cloneflags:  syscall.CLONE_NEWUSER,
		UidMappings: []syscall.SysProcIDMap{{ContainerID: 0, HostID: os.Getuid(), Size: 1}},
		GidMappings: []syscall.SysProcIDMap{{ContainerID: 0, HostID: os.Getgid(), Size: 1}},
	}
	out, err := cmd.CombinedOutput()
	if err != nil && strings.Contains(string(out), "lower "+sysctl) || isStartError(err) {
		t.Skipf("no user namespace with its own inotify limits here: %v %s", err, out)
	}
	if err != nil || !strings.Contains(string(out), "--- PASS: "+test) {
		t.Fatalf("child in a user namespace: %v\n%s", err, out)
	}
	return false
}

func isStartError(err error) bool {
	_, exited := err.(*exec.ExitError)
	return err != nil && !exited
}

// warnings drains what the watcher has said so far.
func warnings(w *Watcher) []string {
	var out []string
	for {
		select {
		case m := <-w.Warnings():
			out = append(out, m)
		default:
			return out
		}
	}
}

// With fewer watches than folders, the watcher says so once, naming the sysctl, and still finds a
// change in a folder it could not watch by rescanning on its timer.
func TestWatchLimitReached(t *testing.T) {
	if !inNamespace(t, "TestWatchLimitReached", "max_inotify_watches", 4) {
		return
	}
	files := map[string]string{}
	for i := range 12 {
		files[fmt.Sprintf("d%02d/sub/f.go", i)] = "package sub\n"
	}
	r := start(t, files, Options{Rescan: 200 * time.Millisecond})
	r.write(map[string]string{"d11/sub/f.go": "package sub // changed\n"})
	r.untilRescan()
	r.phase()
	r.untilRescan() // and again: the timer keeps going
	said := warnings(r.w)
	if len(said) != 1 || !strings.Contains(said[0], "fs.inotify.max_user_watches") {
		t.Fatalf("want one warning naming fs.inotify.max_user_watches, got %q", said)
	}
}

// Without any inotify instance left, the watcher still starts and rescans on its timer.
func TestNoInotifyInstanceLeft(t *testing.T) {
	if !inNamespace(t, "TestNoInotifyInstanceLeft", "max_inotify_instances", 0) {
		return
	}
	r := start(t, map[string]string{"a.go": "package a\n"}, Options{Rescan: 200 * time.Millisecond})
	r.write(map[string]string{"b.go": "package a\n"})
	r.untilRescan()
	r.phase()
	r.untilRescan()
	said := warnings(r.w)
	if len(said) != 1 || !strings.Contains(said[0], "fs.inotify.max_user_instances") {
		t.Fatalf("want one warning naming fs.inotify.max_user_instances, got %q", said)
	}
}
