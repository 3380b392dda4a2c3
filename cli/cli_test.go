package cli

import (
	"bytes"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"
)

func run(args ...string) (code int, stdout, stderr string) {
	var out, errOut bytes.Buffer
	code = Run(args, strings.NewReader(""), &out, &errOut)
	return code, out.String(), errOut.String()
}

func TestVersionWritesToTheGivenWriter(t *testing.T) {
	for _, args := range [][]string{{"version"}, {"--version"}} {
		if code, stdout, stderr := run(args...); code != 0 || stdout != versionLine()+"\n" || !strings.HasPrefix(stdout, "ctxmap "+Version+" (commit ") || stderr != "" {
			t.Errorf("%s: exit %d, stdout %q, stderr %q", args, code, stdout, stderr)
		}
	}
}

func TestUsageExitCodes(t *testing.T) {
	for _, c := range []struct {
		args []string
		code int
	}{
		{nil, 2},
		{[]string{"help"}, 0},
		{[]string{"nosuch"}, 2},
		{[]string{"context", "-h"}, 0},
		{[]string{"context", "--budget", "50", "text"}, 2},
		{[]string{"context", "--budget", "0", "text"}, 2},
		{[]string{"context", "--budget", "-3", "text"}, 2},
		{[]string{"context", "--budget", "many", "text"}, 2},
		{[]string{"context", "--nosuch", "text"}, 2},
		{[]string{"context"}, 2},
		{[]string{"entities", "extra"}, 2},
		{[]string{"explore"}, 2},
		{[]string{"mappings"}, 2},
		{[]string{"bench", "extra"}, 2},
		{[]string{"bench", "mine", "--shard", "3/2"}, 2},
		{[]string{"completion", "tcsh"}, 2},
		{[]string{"completion"}, 2},
	} {
		if code, _, stderr := run(c.args...); code != c.code {
			t.Errorf("ctxmap %q: exit %d, want %d; stderr %s", c.args, code, c.code, stderr)
		} else if code == 2 && !strings.Contains(stderr, "ctxmap") {
			t.Errorf("ctxmap %q: a usage error without a message: %q", c.args, stderr)
		}
	}
	if _, _, stderr := run("contxt"); !strings.Contains(stderr, `did you mean "context"`) {
		t.Errorf("a misspelt command gets no suggestion: %s", stderr)
	}
}

// Every flag of every command is in that command's --help, and in its man page.
func TestHelpAndManPagesListEveryFlag(t *testing.T) {
	man := t.TempDir()
	if code, _, stderr := run("man", "--dir", man); code != 0 {
		t.Fatalf("man: exit %d: %s", code, stderr)
	}
	var walk func(c *cobra.Command)
	walk = func(c *cobra.Command) {
		if c.Hidden || c.Name() == "help" {
			return
		}
		path := strings.Fields(c.CommandPath())[1:]
		code, help, stderr := run(append(path, "--help")...)
		if code != 0 {
			t.Errorf("%s --help: exit %d: %s", c.CommandPath(), code, stderr)
		}
		page, err := os.ReadFile(filepath.Join(man, strings.ReplaceAll(c.CommandPath(), " ", "-")+".1"))
		if err != nil {
			t.Errorf("no man page for %s: %v", c.CommandPath(), err)
		}
		c.Flags().VisitAll(func(f *pflag.Flag) {
			if !strings.Contains(help, "--"+f.Name) {
				t.Errorf("%s --help leaves out --%s", c.CommandPath(), f.Name)
			}
			// the man page escapes dashes
			if !strings.Contains(strings.ReplaceAll(string(page), `\-`, "-"), "--"+f.Name) {
				t.Errorf("the man page of %s leaves out --%s", c.CommandPath(), f.Name)
			}
		})
		for _, sub := range c.Commands() {
			walk(sub)
		}
	}
	e := &env{}
	walk(e.command())
}

// bash accepts the completion script, and once loaded it completes ctxmap's commands and flags.
func TestBashCompletion(t *testing.T) {
	if _, err := exec.LookPath("bash"); err != nil {
		t.Skip("no bash")
	}
	code, script, stderr := run("completion", "bash")
	if code != 0 {
		t.Fatalf("completion bash: exit %d: %s", code, stderr)
	}
	file := filepath.Join(t.TempDir(), "ctxmap.bash")
	if err := os.WriteFile(file, []byte(script), 0o644); err != nil {
		t.Fatal(err)
	}
	if out, err := exec.Command("bash", "-n", file).CombinedOutput(); err != nil {
		t.Fatalf("bash -n rejects the script: %v: %s", err, out)
	}
	if out, err := exec.Command("bash", "-c", "source "+file+" && complete -p ctxmap").CombinedOutput(); err != nil ||
		!strings.Contains(string(out), "__start_ctxmap") {
		t.Fatalf("loaded, the script registers no completion for ctxmap: %v: %s", err, out)
	}
	// what the script asks the binary when Tab is pressed
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"__complete", "cont"}, "context"},
		{[]string{"__complete", "context", "--bud"}, "--budget"},
		{[]string{"__complete", "map", "--fo"}, "--format"},
	} {
		if _, out, _ := run(c.args...); !strings.Contains(out, c.want) {
			t.Errorf("ctxmap %s: %q lacks %s", strings.Join(c.args, " "), out, c.want)
		}
	}
	for _, shell := range []string{"zsh", "fish"} {
		if code, out, _ := run("completion", shell); code != 0 || !strings.Contains(out, "ctxmap") {
			t.Errorf("completion %s: exit %d", shell, code)
		}
	}
}
