package cli

import (
	"bytes"
	"testing"
)

func TestVersionWritesToTheGivenWriter(t *testing.T) {
	var stdout, stderr bytes.Buffer
	if code := Run([]string{"version"}, nil, &stdout, &stderr); code != 0 || stdout.String() != "ctxmap "+Version+"\n" || stderr.Len() > 0 {
		t.Errorf("version: exit %d, stdout %q, stderr %q", code, stdout.String(), stderr.String())
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
		{[]string{"entities", "extra"}, 2},
		{[]string{"mappings"}, 2},
	} {
		var stdout, stderr bytes.Buffer
		if code := Run(c.args, nil, &stdout, &stderr); code != c.code {
			t.Errorf("ctxmap %q: exit %d, want %d; stderr %s", c.args, code, c.code, stderr.String())
		}
	}
}
