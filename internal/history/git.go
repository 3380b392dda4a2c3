package history

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"time"
)

// A checkout can come from anywhere (a tarball, a shared folder) with its own .git/config and
// .gitattributes, which may name programs for git to start: an fsmonitor, hooks, filters, diff
// drivers, a pager, or the upload-pack of a promisor remote that a missing object makes git fetch
// from. Every git command ctxmap runs goes through Git, which turns each of them off in a way the
// repository's configuration cannot undo (git 2.39 and later).

// safeConfig is given on the command line's level, above every configuration file.
var safeConfig = [][2]string{
	{"core.fsmonitor", "false"},
	{"core.hooksPath", os.DevNull},
	{"protocol.allow", "never"},
	{"core.quotepath", "off"},
	{"log.showSignature", "false"},
}

// safeEnv holds what the configuration cannot override: GIT_ALLOW_PROTOCOL outranks every
// protocol.<name>.allow, so no transport (and so no lazy fetch of a partial clone) starts.
var safeEnv = []string{
	"LC_ALL=C", "LANGUAGE=C",
	"GIT_TERMINAL_PROMPT=0", "GIT_OPTIONAL_LOCKS=0", "GIT_PAGER=cat",
	"GIT_ALLOW_PROTOCOL=none", "GIT_NO_LAZY_FETCH=1",
}

// noDrivers are the commands that never read a file's content through its attributes, so need no
// look at the drivers the repository defines.
var noDrivers = map[string]bool{"rev-parse": true, "rev-list": true, "ls-files": true, "ls-tree": true,
	"init": true, "config": true, "cat-file": true}

// driverKeys are the settings that name a program started for a file's attributes: filters (run
// when git reads a work tree file or checks one out), diff drivers and the external diff.
const driverKeys = `^(filter\..+\.(clean|smudge|process|required)|diff\..+\.(textconv|command)|diff\.external)$`

// maxDrivers bounds the settings a repository may define for them; more is refused.
const maxDrivers = 256

// Git is the git command args run in dir that starts no program the repository's configuration or
// attributes name: hooks and the fsmonitor off, no transport allowed, the pager, the prompts and the
// optional locks off, and every filter or diff driver the repository itself defines emptied. None of
// the caller's GIT_* variables reach it (they could point it at another repository).
func Git(ctx context.Context, dir string, args ...string) (*exec.Cmd, error) {
	if len(args) == 0 {
		return nil, errors.New("git: no command")
	}
	config := safeConfig
	if !noDrivers[args[0]] {
		drivers, err := repositoryDrivers(ctx, dir)
		if err != nil {
			return nil, fmt.Errorf("git %s in %s: %w", args[0], dir, err)
		}
		config = append(append([][2]string(nil), safeConfig...), drivers...)
	}
	return command(ctx, dir, config, args), nil
}

// Output runs one git command in dir, as Git makes it, and returns its output; an error says the
// command and the first line of what git said.
func Output(ctx context.Context, dir string, args ...string) (string, error) {
	cmd, err := Git(ctx, dir, args...)
	if err != nil {
		return "", err
	}
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		if ctx.Err() != nil {
			return "", fmt.Errorf("git %s: %w", args[0], ctx.Err())
		}
		msg := strings.TrimSpace(stderr.String())
		if msg == "" {
			return "", fmt.Errorf("git %s: %w", args[0], err)
		}
		return "", fmt.Errorf("git %s: %w: %s", args[0], err, firstLine(msg))
	}
	return string(out), nil
}

func command(ctx context.Context, dir string, config [][2]string, args []string) *exec.Cmd {
	cmd := exec.CommandContext(ctx, "git", append([]string{"--no-pager", "--no-optional-locks", "-C", dir}, args...)...)
	env := make([]string, 0, len(os.Environ())+len(safeEnv)+2*len(config)+1)
	for _, kv := range os.Environ() {
		if !strings.HasPrefix(kv, "GIT_") && !strings.HasPrefix(kv, "LC_ALL=") && !strings.HasPrefix(kv, "LANGUAGE=") {
			env = append(env, kv)
		}
	}
	env = append(env, safeEnv...)
	// GIT_CONFIG_KEY_n keeps a key whole where -c would split it at an '=' a driver's name may hold
	env = append(env, "GIT_CONFIG_COUNT="+strconv.Itoa(len(config)))
	for i, kv := range config {
		n := strconv.Itoa(i)
		env = append(env, "GIT_CONFIG_KEY_"+n+"="+kv[0], "GIT_CONFIG_VALUE_"+n+"="+kv[1])
	}
	cmd.Env = env
	cmd.WaitDelay = time.Second
	return cmd
}

// repositoryDrivers are the settings that empty each filter and diff driver that the repository's own
// configuration (its local or worktree file, or one these include) sets; the user's and the system's
// stay as they are.
func repositoryDrivers(ctx context.Context, dir string) ([][2]string, error) {
	cmd := command(ctx, dir, safeConfig, []string{"config", "--show-scope", "-z", "--get-regexp", driverKeys})
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	var ee *exec.ExitError
	if errors.As(err, &ee) && ee.ExitCode() == 1 && stderr.Len() == 0 {
		return nil, nil // none set
	}
	if err != nil {
		if msg := strings.TrimSpace(stderr.String()); msg != "" {
			return nil, fmt.Errorf("read its configuration: %w: %s", err, firstLine(msg))
		}
		return nil, fmt.Errorf("read its configuration: %w", err)
	}
	// each entry is "scope\0key\nvalue\0"
	fields := strings.Split(string(out), "\x00")
	var drivers [][2]string
	for i := 0; i+1 < len(fields); i += 2 {
		scope, entry := fields[i], fields[i+1]
		if scope != "local" && scope != "worktree" {
			continue
		}
		key, _, _ := strings.Cut(entry, "\n")
		value := ""
		if strings.HasSuffix(key, ".required") {
			value = "false"
		}
		drivers = append(drivers, [2]string{key, value})
		if len(drivers) > maxDrivers {
			return nil, fmt.Errorf("more than %d filter and diff driver settings", maxDrivers)
		}
	}
	return drivers, nil
}
