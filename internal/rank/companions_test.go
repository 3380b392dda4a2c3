package rank

import (
	"context"
	"fmt"
	"maps"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/ctxmap/ctxmap/internal/history"
	"github.com/ctxmap/ctxmap/internal/query"
)

// Files that change with a likely file change with each other: four sources that each changed with a
// file no signal finds raise it, and their raises joined as independent would put it above them all.
// It comes after the likeliest source that raised it.
func TestAFileRaisedByManySourcesStaysBehindTheLikeliest(t *testing.T) {
	files := map[string]string{}
	kinds := []string{"tcp", "udp", "unix", "pipe"}
	for _, k := range kinds {
		files["net/"+k+".go"] = fmt.Sprintf(`package net

// %[1]sSocket is a %[1]s socket.
type %[1]sSocket struct{ fd int }

// Writable waits until the %[1]s socket can be written.
func (s *%[1]sSocket) Writable() error {
	if s.fd < 0 {
		return errClosed
	}
	return wait(s.fd, writeReady)
}

// TryIO runs f once the %[1]s socket is ready.
func (s *%[1]sSocket) TryIO(f func() error) error {
	if err := s.Writable(); err != nil {
		return err
	}
	return f()
}
`, k)
	}
	files["net/listener.go"] = `package net

// Listener accepts connections.
type Listener struct{ fd int }

// Accept waits for the next connection.
func (l *Listener) Accept() (int, error) {
	return accept(l.fd)
}
`
	v := testView(t, files)
	var commits []history.Commit
	for i := 0; i < 40; i++ {
		source := "net/" + kinds[i%len(kinds)] + ".go"
		commits = append(commits, history.Commit{Hash: fmt.Sprintf("%040d", i), Time: time.Unix(int64(1e9+i), 0),
			Subject: "net: readiness", Files: []string{source, "net/listener.go"}})
	}
	v.History = &history.Log{Available: true, Commits: commits}
	text := "tcpSocket.Writable returns before the socket is writable; udpSocket.Writable, unixSocket.Writable and pipeSocket.Writable too, so TryIO fails"
	got, err := Rank(context.Background(), v, query.Analyze(text, nil), Options{Ranker: Learned, Budget: 8000})
	if err != nil {
		t.Fatal(err)
	}
	first, prob := map[string]int{}, map[string]float64{}
	for i, c := range got.Candidates {
		if _, ok := first[c.Path]; !ok && c.Bucket != "outlines" {
			first[c.Path], prob[c.Path] = i, c.Probability
		}
	}
	raised, ok := first["net/listener.go"]
	if !ok {
		t.Fatalf("the file that changed with every source is not shown: %v", first)
	}
	best, bestAt := 0.0, -1
	for _, k := range kinds {
		if i, ok := first["net/"+k+".go"]; ok && (bestAt < 0 || i < bestAt) {
			best, bestAt = prob["net/"+k+".go"], i
		}
	}
	if bestAt < 0 || raised < bestAt {
		t.Errorf("the raised file is item %d, before every source (the first at %d): %v", raised, bestAt, first)
	}
	if prob["net/listener.go"] > best {
		t.Errorf("the raised file's probability %.3f is above its likeliest source's %.3f", prob["net/listener.go"], best)
	}
}

// An issue that names an earlier one points at the code that issue's fix changed: the file the commits
// naming it changed is shown, saying why, though no word of the text is in it.
func TestAFileTheReferencedIssueChangedIsShown(t *testing.T) {
	files := map[string]string{
		"lint/imports.py":   "def unused_imports(module):\n    \"\"\"Report the unused imports of a module.\"\"\"\n    return [name for name in module.imports if name not in module.used]\n",
		"lint/comments.py":  "def type_comment(line):\n    \"\"\"The annotation a type comment holds.\"\"\"\n    return line.split('# type:')[1].strip()\n",
		"lint/variables.py": "def scope_names(node):\n    return {n.name for n in node.body}\n\n\ndef consumed(scope, name):\n    return name in scope.consumed\n",
	}
	v := testView(t, files)
	v.History = &history.Log{Available: true, Commits: []history.Commit{
		{Hash: fmt.Sprintf("%040d", 2), Time: time.Unix(1e9+2, 0), Subject: "Support typing comments. Close #3112", Files: []string{"lint/variables.py", "ChangeLog"}},
		{Hash: fmt.Sprintf("%040d", 1), Time: time.Unix(1e9+1, 0), Subject: "Report unused imports", Files: []string{"lint/imports.py"}},
	}}
	ask := func(text string) (why []string, shown bool) {
		got, err := Rank(context.Background(), v, query.Analyze(text, nil), Options{Ranker: Learned, Budget: 8000})
		if err != nil {
			t.Fatal(err)
		}
		for _, c := range got.Candidates {
			if c.Path == "lint/variables.py" && c.Bucket != "outlines" {
				return c.Why, true
			}
		}
		return nil, false
	}
	text := "unused imports reported for a module used in a type comment"
	if why, shown := ask(text + ". This is a follow up to #3112."); !shown || !slices.ContainsFunc(why, func(w string) bool { return strings.Contains(w, "names #3112") }) {
		t.Errorf("the file #3112's fix changed: shown %v, why %q", shown, why)
	}
	if why, shown := ask(text + "."); shown && slices.ContainsFunc(why, func(w string) bool { return strings.Contains(w, "names #3112") }) {
		t.Errorf("without the reference the file is shown for it: %q", why)
	}
}

// Files no signal found, added by a reference and by the history, each take a place of their own in
// the ranking: no two files of a pack are called by one number.
func TestFilesAddedByRaisesAreNumberedApart(t *testing.T) {
	files := map[string]string{
		"lint/imports.py": "def unused_imports(module):\n    \"\"\"Report the unused imports of a module.\"\"\"\n    return [name for name in module.imports if name not in module.used]\n",
		"lint/scopes.py":  "def frame_of(node):\n    return node.frame()\n",
		"lint/checker.py": "def visit_module(tree):\n    return tree.body\n",
	}
	v := testView(t, files)
	var commits []history.Commit
	for i := 0; i < 6; i++ {
		commits = append(commits, history.Commit{Hash: fmt.Sprintf("%040d", 10+i), Time: time.Unix(int64(1e9+10+i), 0),
			Subject: "Tidy", Files: []string{"lint/imports.py", "lint/checker.py"}})
	}
	commits = append(commits, history.Commit{Hash: fmt.Sprintf("%040d", 2), Time: time.Unix(1e9+2, 0),
		Subject: "Close #3112", Files: []string{"lint/scopes.py"}})
	v.History = &history.Log{Available: true, Commits: commits}
	got, err := Rank(context.Background(), v, query.Analyze("`unused_imports` reports a module used in a type comment. A follow up to #3112.", nil),
		Options{Ranker: Learned, Budget: 8000})
	if err != nil {
		t.Fatal(err)
	}
	pathOf := map[string]string{}
	for _, c := range got.Candidates {
		for _, w := range c.Why {
			if !strings.HasPrefix(w, "file #") {
				continue
			}
			n, _, _ := strings.Cut(strings.TrimPrefix(w, "file #"), ",")
			if p, ok := pathOf[n]; ok && p != c.Path {
				t.Errorf("file #%s is both %s and %s", n, p, c.Path)
			}
			pathOf[n] = c.Path
		}
	}
	for _, p := range []string{"lint/scopes.py", "lint/checker.py"} {
		if !slices.Contains(slices.Collect(maps.Values(pathOf)), p) {
			t.Errorf("%s is not numbered among the pack's files: %v", p, pathOf)
		}
	}
}
