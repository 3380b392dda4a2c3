// Package filetest writes, lists and damages files for the tests of any package: the workspaces and
// caches they make, and the damage they recover from.
package filetest

import (
	"bytes"
	"fmt"
	"io/fs"
	"math/rand"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strings"
	"sync"
	"testing"
	"time"

	"golang.org/x/tools/txtar"
)

// Write creates files (slash paths to their content) under root, with the folders they need.
func Write(t testing.TB, root string, files map[string]string) {
	t.Helper()
	for rel, content := range files {
		p := filepath.Join(root, filepath.FromSlash(rel))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
	}
}

// Eventually polls cond until it holds and fails the test when within passes first, saying what it
// waited for: the one wait of the tests for what another goroutine or process does in its own time.
func Eventually(t testing.TB, within time.Duration, what string, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(within)
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatalf("waited %s for %s", within, what)
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// Log is text written by one goroutine (a process's output, a server's log) while others read it.
type Log struct {
	mu sync.Mutex
	b  strings.Builder
}

// Write adds p to the text.
func (l *Log) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.Write(p)
}

// Logf writes a line, as the Logf of a server's options would.
func (l *Log) Logf(format string, args ...any) {
	fmt.Fprintf(l, format+"\n", args...)
}

// String is the text written so far.
func (l *Log) String() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.String()
}

// Garbage is up to n of pieces and random bytes (one in byteOneIn), picked by rng: what no client
// sends, for the tests of a reader that must survive it.
func Garbage(rng *rand.Rand, pieces []string, n, byteOneIn int) string {
	var b strings.Builder
	for k := rng.Intn(n + 1); k > 0; k-- {
		if rng.Intn(byteOneIn) == 0 {
			b.WriteByte(byte(rng.Intn(256)))
		} else {
			b.WriteString(pieces[rng.Intn(len(pieces))])
		}
	}
	return b.String()
}

// Seed is the seed of a test's random choices: CTXMAP_SEED when set (to replay a failure), else the
// clock's; it is logged, so that a failure says how to replay it.
func Seed(t testing.TB) int64 {
	t.Helper()
	seed := time.Now().UnixNano()
	if s := os.Getenv("CTXMAP_SEED"); s != "" {
		if _, err := fmt.Sscan(s, &seed); err != nil {
			t.Fatalf("CTXMAP_SEED=%q: %v", s, err)
		}
	}
	t.Logf("seed %d (CTXMAP_SEED=%d replays it)", seed, seed)
	return seed
}

// Read is the content of the file at path; the test fails when it cannot be read.
func Read(t testing.TB, path string) string {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// Golden checks got against the golden file at path, or with update writes got there. It returns what
// the file holds and whether got differs from it, for the test to show the difference its own way.
func Golden(t testing.TB, path string, got []byte, update bool) (want []byte, differs bool) {
	t.Helper()
	if update {
		Write(t, filepath.Dir(path), map[string]string{filepath.Base(path): string(got)})
		return got, false
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("%v (go test -update writes it)", err)
	}
	return want, !bytes.Equal(got, want)
}

// List is every file under dir that keep accepts (nil: every one), as paths relative to dir, sorted.
func List(t testing.TB, dir string, keep func(fs.FileInfo) bool) []string {
	t.Helper()
	var out []string
	err := filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		fi, err := os.Stat(p)
		if err != nil {
			return err
		}
		if keep == nil || keep(fi) {
			rel, _ := filepath.Rel(dir, p)
			out = append(out, rel)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	sort.Strings(out)
	return out
}

// Flip inverts the byte of path at offset at.
func Flip(t testing.TB, path string, at int64) {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	b[at] ^= 0xff
	if err := os.WriteFile(path, b, 0o600); err != nil {
		t.Fatal(err)
	}
}

// Damage flips 16 bytes of path at frac of its size (how is "flip"), or cuts it there ("cut").
func Damage(t testing.TB, path, how string, frac float64) {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	at := int(float64(len(b)) * frac)
	switch how {
	case "cut":
		b = b[:at]
	case "flip":
		for i := at; i < min(at+16, len(b)); i++ {
			b[i] ^= 0xff
		}
	default:
		t.Fatalf("damage %s: %q is neither flip nor cut", path, how)
	}
	if err := os.WriteFile(path, b, 0o600); err != nil {
		t.Fatal(err)
	}
}

// NeedGit skips the test when git is not installed.
func NeedGit(t testing.TB) {
	t.Helper()
	if _, err := exec.LookPath("git"); err != nil {
		t.Skip("git not installed")
	}
}

// Git runs git in dir as a test's committer (see GitAt) and returns its output, trimmed; a failure
// fails the test.
func Git(t testing.TB, dir string, args ...string) string {
	t.Helper()
	out, err := GitAt(dir, 0, args...)
	if err != nil {
		t.Fatal(err)
	}
	return out
}

// GitAt runs git in dir as a test's committer (no signing, a fixed name, no system or user
// configuration: a user's global excludes would change what git lists), what it commits dated at
// unix time when (0: now), and returns its output, trimmed. For fixtures made outside a test too.
func GitAt(dir string, when int64, args ...string) (string, error) {
	cmd := exec.Command("git", append([]string{"-C", dir, "-c", "user.name=Test", "-c", "user.email=t@example.com",
		"-c", "commit.gpgsign=false", "-c", "core.autocrlf=false"}, args...)...)
	cmd.Env = append(os.Environ(), "GIT_CONFIG_NOSYSTEM=1", "GIT_CONFIG_GLOBAL="+os.DevNull)
	if when != 0 {
		date := fmt.Sprintf("%d +0000", when)
		cmd.Env = append(cmd.Env, "GIT_AUTHOR_DATE="+date, "GIT_COMMITTER_DATE="+date)
	}
	out, err := cmd.CombinedOutput()
	if err != nil {
		return "", fmt.Errorf("git %s: %v\n%s", strings.Join(args, " "), err, out)
	}
	return strings.TrimSpace(string(out)), nil
}

// Trap writes a program that, when anything starts it, appends its name and arguments to the file
// marker and fails; a test names it wherever a checkout could name a program for git to start, and
// checks that marker was never written (Sprung).
func Trap(t testing.TB, name string) (program, marker string) {
	t.Helper()
	dir := t.TempDir()
	program, marker = filepath.Join(dir, name), filepath.Join(dir, "marker")
	script := fmt.Sprintf("#!/bin/sh\necho \"$0 $*\" >> '%s'\nexit 1\n", marker)
	if err := os.WriteFile(program, []byte(script), 0o755); err != nil {
		t.Fatal(err)
	}
	return program, marker
}

// Sprung fails the test when a Trap's marker was written, with what started it.
func Sprung(t testing.TB, marker string) {
	t.Helper()
	if b, err := os.ReadFile(marker); err == nil {
		t.Errorf("a program the checkout names was started:\n%s", b)
	} else if !os.IsNotExist(err) {
		t.Fatal(err)
	}
}

// Txtar reads the files of a txtar archive, by their names; for a test's fixtures, read when the
// package's tests start, so an archive that cannot be read panics.
func Txtar(path string) map[string]string {
	a, err := txtar.ParseFile(path)
	if err != nil {
		panic(fmt.Sprintf("read the fixtures %s: %v", path, err))
	}
	files := make(map[string]string, len(a.Files))
	for _, f := range a.Files {
		files[f.Name] = string(f.Data)
	}
	return files
}

// binary is the ctxmap command a test process builds once.
var binary struct {
	once sync.Once
	path string
	err  error
}

// goCache is Go's build cache as the tests found it: a test that sets XDG_CACHE_HOME would otherwise
// send the build to an empty cache, and the grammars take minutes to compile again.
var goCache = func() string {
	if c := os.Getenv("GOCACHE"); c != "" {
		return c
	}
	dir, _ := os.UserCacheDir()
	return filepath.Join(dir, "go-build")
}()

// Binary builds the ctxmap command once per test process, for what only a process shows (a
// terminal, exit codes, signals, a crash); a package's TestMain removes it with RemoveBinary. A build
// that fails fails the test. With -short the test is skipped: -short runs what needs no binary.
func Binary(t testing.TB) string {
	t.Helper()
	if testing.Short() {
		t.Skip("builds the binary: not with -short")
	}
	binary.once.Do(func() {
		dir, err := os.MkdirTemp("", "ctxmap-bin")
		if err != nil {
			binary.err = err
			return
		}
		binary.path = filepath.Join(dir, "ctxmap")
		cmd := exec.Command("go", "build", "-o", binary.path, "github.com/ctxmap/ctxmap")
		cmd.Env = append(os.Environ(), "GOCACHE="+goCache)
		if out, err := cmd.CombinedOutput(); err != nil {
			binary.err = fmt.Errorf("go build: %v\n%s", err, out)
		}
	})
	if binary.err != nil {
		t.Fatalf("cannot build ctxmap: %v", binary.err)
	}
	return binary.path
}

// Command is the ctxmap command (Binary) with args, its cache in a temporary folder of the test's,
// never the user's.
func Command(t testing.TB, args ...string) *exec.Cmd {
	t.Helper()
	cmd := exec.Command(Binary(t), args...)
	cmd.Env = append(os.Environ(), "XDG_CACHE_HOME="+t.TempDir())
	return cmd
}

// RemoveBinary removes the command Binary built, if it built one.
func RemoveBinary() {
	if binary.path != "" {
		os.RemoveAll(filepath.Dir(binary.path))
	}
}
