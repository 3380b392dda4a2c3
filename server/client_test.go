package server

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"net"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"go.lsp.dev/jsonrpc2"
	"go.lsp.dev/protocol"

	"github.com/ctxmap/ctxmap/internal/filetest"
	"github.com/ctxmap/ctxmap/session"
)

// The tests drive a real server over a real connection with the library's own jsonrpc2 client, on
// copies of testdata workspaces that are made git repositories first.

const testTimeout = 60 * time.Second

// workspaceCopy copies testdata/<name> to a temporary folder and commits it to a fresh git repository.
func workspaceCopy(t testing.TB, name string) string {
	t.Helper()
	root := filepath.Join(t.TempDir(), name)
	if err := copyTree(filepath.Join("testdata", name), root); err != nil {
		t.Fatal(err)
	}
	filetest.Git(t, root, "init", "-q")
	filetest.Git(t, root, "add", ".")
	filetest.Git(t, root, "commit", "-q", "-m", "Gist publishing and rules")
	return root
}

// copyTree copies a folder with its files and symbolic links.
func copyTree(src, dst string) error {
	return filepath.WalkDir(src, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(src, p)
		target := filepath.Join(dst, rel)
		switch {
		case d.IsDir():
			return os.MkdirAll(target, 0o755)
		case d.Type()&fs.ModeSymlink != 0:
			link, err := os.Readlink(p)
			if err != nil {
				return err
			}
			return os.Symlink(link, target)
		case !d.Type().IsRegular():
			return nil
		}
		b, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		info, err := d.Info()
		if err != nil {
			return err
		}
		return os.WriteFile(target, b, info.Mode().Perm())
	})
}

func writeFile(t testing.TB, root, rel, content string) {
	t.Helper()
	filetest.Write(t, root, map[string]string{rel: content})
}

// testStream is the client's side of the wire: LSP framing, every frame kept for inspection, and frames
// the library cannot decode (error responses with a null id) kept aside instead of ending the session.
type testStream struct {
	rwc io.ReadWriteCloser
	in  *bufio.Reader

	wmu sync.Mutex

	frames *arrivals[string]
}

func newTestStream(rwc io.ReadWriteCloser) *testStream {
	return &testStream{rwc: rwc, in: bufio.NewReader(rwc), frames: newArrivals[string]()}
}

// arrivals keeps what comes from the server, in order, for a test to wait for.
type arrivals[T any] struct {
	mu    sync.Mutex
	all   []T
	added chan struct{} // closed at each arrival, then replaced
}

func newArrivals[T any]() *arrivals[T] { return &arrivals[T]{added: make(chan struct{})} }

func (a *arrivals[T]) add(x T) {
	a.mu.Lock()
	defer a.mu.Unlock()
	a.all = append(a.all, x)
	close(a.added)
	a.added = make(chan struct{})
}

// list is what has arrived so far.
func (a *arrivals[T]) list() []T {
	a.mu.Lock()
	defer a.mu.Unlock()
	return a.all
}

// wait waits for an arrival that matches and returns it; after testTimeout it fails the test, saying
// that none was what.
func (a *arrivals[T]) wait(t testing.TB, what string, match func(T) bool) T {
	t.Helper()
	deadline := time.After(testTimeout)
	seen := 0
	for {
		a.mu.Lock()
		got, added := a.all, a.added
		a.mu.Unlock()
		for _, x := range got[seen:] {
			if match(x) {
				return x
			}
		}
		seen = len(got)
		select {
		case <-added:
		case <-deadline:
			t.Fatalf("no %s", what)
		}
	}
}

func (s *testStream) Read(ctx context.Context) (jsonrpc2.Message, int64, error) {
	for {
		body, err := readFrame(s.in)
		if err != nil {
			return nil, 0, err
		}
		s.frames.add(string(body))
		msg, err := jsonrpc2.DecodeMessage(body)
		if err == nil {
			return msg, int64(len(body)), nil
		}
	}
}

func (s *testStream) Write(ctx context.Context, msg jsonrpc2.Message) (int64, error) {
	body, err := json.Marshal(msg)
	if err != nil {
		return 0, err
	}
	return int64(len(body)), s.writeRaw(fmt.Sprintf("Content-Length: %d\r\n\r\n%s", len(body), body))
}

func (s *testStream) writeRaw(frame string) error {
	s.wmu.Lock()
	defer s.wmu.Unlock()
	_, err := io.WriteString(s.rwc, frame)
	return err
}

func (s *testStream) Close() error { return s.rwc.Close() }

// waitFrame waits for a frame from the server that holds all the parts.
func (s *testStream) waitFrame(t testing.TB, parts ...string) string {
	t.Helper()
	return s.frames.wait(t, fmt.Sprintf("frame from the server holds %q", parts), func(f string) bool {
		return containsAllParts(f, parts)
	})
}

func containsAllParts(s string, parts []string) bool {
	for _, p := range parts {
		if !strings.Contains(s, p) {
			return false
		}
	}
	return true
}

// message is a notification or request the server sent to the client.
type message struct {
	method string
	params json.RawMessage
}

type client struct {
	t      testing.TB
	root   string
	conn   jsonrpc2.Conn
	stream *testStream

	received *arrivals[message]
}

func newClient(t testing.TB, rwc io.ReadWriteCloser, root string) *client {
	c := &client{t: t, root: root, stream: newTestStream(rwc), received: newArrivals[message]()}
	c.conn = jsonrpc2.NewConn(c.stream)
	c.conn.Go(context.Background(), func(ctx context.Context, reply jsonrpc2.Replier, req jsonrpc2.Request) error {
		c.received.add(message{req.Method(), json.RawMessage(req.Params())})
		return reply(ctx, nil, nil)
	})
	return c
}

// readyNotes starts a server on a copy of the notes workspace, without capabilities or options, and
// waits until it has indexed it.
func readyNotes(t testing.TB) *client {
	t.Helper()
	c := start(t, workspaceCopy(t, "notes"), Options{}, nil, nil)
	c.waitReady()
	return c
}

// start runs a server in this process on one end of a pipe and returns a client on the other,
// initialized with the given capabilities (nil: none) and options. The index is kept in memory unless
// opts names a cache folder.
func start(t testing.TB, root string, opts Options, caps, initOptions any) *client {
	t.Helper()
	opts.Logf = t.Logf
	c := serve(t, root, opts)
	if caps == nil {
		caps = map[string]any{}
	}
	var res protocol.InitializeResult
	c.mustCall("initialize", map[string]any{
		"processId": os.Getpid(), "rootUri": fileURI(root), "capabilities": caps, "initializationOptions": initOptions,
	}, &res)
	c.notify("initialized", map[string]any{})
	return c
}

// serve runs a server in this process on one end of a pipe and returns a client on the other, not
// yet initialized, whose uri and read are root's. The index is kept in memory unless opts names a
// cache folder.
func serve(t testing.TB, root string, opts Options) *client {
	t.Helper()
	serverEnd, clientEnd := net.Pipe()
	opts.InMemory = opts.CacheDir == ""
	served := make(chan error, 1)
	go func() { served <- Serve(context.Background(), serverEnd, opts) }()
	c := newClient(t, clientEnd, root)
	t.Cleanup(func() {
		c.conn.Close()
		select {
		case <-served:
		case <-time.After(testTimeout):
			t.Error("the server did not stop after the connection closed")
		}
	})
	return c
}

func (c *client) call(method string, params, result any) error {
	ctx, cancel := context.WithTimeout(context.Background(), testTimeout)
	defer cancel()
	_, err := c.conn.Call(ctx, method, params, result)
	return err
}

func (c *client) mustCall(method string, params, result any) {
	c.t.Helper()
	if err := c.call(method, params, result); err != nil {
		c.t.Fatalf("%s: %v", method, err)
	}
}

func (c *client) notify(method string, params any) {
	c.t.Helper()
	if err := c.conn.Notify(context.Background(), method, params); err != nil {
		c.t.Fatalf("notify %s: %v", method, err)
	}
}

func (c *client) command(name string, arg, result any) error {
	params := map[string]any{"command": name}
	if arg != nil {
		params["arguments"] = []any{arg}
	}
	return c.call("workspace/executeCommand", params, result)
}

// waitReady waits until the first index build finished and every queued change is applied.
func (c *client) waitReady() session.Status {
	c.t.Helper()
	var st session.Status
	filetest.Eventually(c.t, testTimeout, "the index ready", func() bool {
		st = session.Status{}
		if err := c.command(cmdStatus, nil, &st); err != nil {
			c.t.Fatalf("status: %v", err)
		}
		return st.Ready && !st.Indexing && st.Pending == 0
	})
	return st
}

// waitMessage waits for a message from the server with that method whose params hold all the parts.
func (c *client) waitMessage(method string, parts ...string) message {
	c.t.Helper()
	return c.received.wait(c.t, fmt.Sprintf("%s from the server holds %q", method, parts), func(m message) bool {
		return m.method == method && containsAllParts(string(m.params), parts)
	})
}

func (c *client) messages(method string) []message {
	var out []message
	for _, m := range c.received.list() {
		if m.method == method {
			out = append(out, m)
		}
	}
	return out
}

func (c *client) uri(rel string) string {
	return fileURI(filepath.Join(c.root, filepath.FromSlash(rel)))
}

func (c *client) open(rel, text string) {
	c.t.Helper()
	c.notify("textDocument/didOpen", map[string]any{"textDocument": map[string]any{
		"uri": c.uri(rel), "languageId": "go", "version": 1, "text": text}})
}

func (c *client) read(rel string) string {
	c.t.Helper()
	return filetest.Read(c.t, filepath.Join(c.root, filepath.FromSlash(rel)))
}

// positionOf is the LSP position (UTF-16 columns) of the n-th occurrence (from 0) of needle in text,
// plus shift characters.
func positionOf(t testing.TB, text, needle string, n, shift int) protocol.Position {
	t.Helper()
	off := -1
	for i := 0; i <= n; i++ {
		j := strings.Index(text[off+1:], needle)
		if j < 0 {
			t.Fatalf("%q occurs fewer than %d times", needle, n+1)
		}
		off += 1 + j
	}
	l := newLineIndex([]byte(text))
	p := l.position(off)
	p.Character += uint32(shift)
	return p
}

func (c *client) hover(rel string, pos protocol.Position) *protocol.Hover {
	c.t.Helper()
	var h *protocol.Hover
	c.mustCall("textDocument/hover", map[string]any{"textDocument": map[string]any{"uri": c.uri(rel)}, "position": pos}, &h)
	return h
}

func (c *client) symbols(query string) []protocol.SymbolInformation {
	c.t.Helper()
	var out []protocol.SymbolInformation
	c.mustCall("workspace/symbol", map[string]any{"query": query}, &out)
	return out
}

func hasSymbol(syms []protocol.SymbolInformation, name string) bool {
	for _, s := range syms {
		if s.Name == name {
			return true
		}
	}
	return false
}

// wireCode is the JSON-RPC code of an error from a call.
func wireCode(t testing.TB, err error) jsonrpc2.Code {
	t.Helper()
	var we *jsonrpc2.Error
	if !errors.As(err, &we) {
		t.Fatalf("want a JSON-RPC error, got %v", err)
	}
	return we.Code
}

func rawFrame(body string) string {
	return fmt.Sprintf("Content-Length: %d\r\n\r\n%s", len(body), body)
}
