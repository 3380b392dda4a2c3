package session

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"net"
	"os"
	"runtime"
	"strings"
	"sync"
	"testing"
	"time"

	"go.lsp.dev/jsonrpc2"

	"github.com/ctxmap/ctxmap/index"
	"github.com/ctxmap/ctxmap/internal/filetest"
)

// cartWorkspace is a workspace of one file, shop/cart.go defining AddToCart; the cache folder, where
// the socket goes, is a temporary one.
func cartWorkspace(t *testing.T) string {
	t.Helper()
	root := t.TempDir()
	writeFile(t, root, "shop/cart.go", "package shop\n\n// AddToCart puts an item in the cart.\nfunc AddToCart() {}\n")
	t.Setenv("XDG_CACHE_HOME", t.TempDir())
	return root
}

// heapAfterGC is the live heap once garbage is collected.
func heapAfterGC() uint64 {
	var m runtime.MemStats
	runtime.GC()
	runtime.GC()
	runtime.ReadMemStats(&m)
	return m.HeapAlloc
}

// sendAndRead writes n bytes of an unfinished call on a new connection while reading the refusal.
func sendAndRead(t *testing.T, path string, n int) refusal {
	t.Helper()
	c, err := net.Dial("unix", path)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	go func() {
		chunk := bytes.Repeat([]byte("a"), 64<<10)
		c.Write([]byte(`{"jsonrpc":"2.0","id":1,"method":"context","params":{"version":5,"arg":{"text":"`))
		for sent := 0; sent < n; sent += len(chunk) {
			if _, err := c.Write(chunk); err != nil {
				return // the server closed its end
			}
		}
	}()
	c.SetReadDeadline(time.Now().Add(30 * time.Second))
	line, err := bufio.NewReader(c).ReadBytes('\n')
	if err != nil {
		t.Fatalf("no answer to a request of %d bytes: %v", n, err)
	}
	msg, err := jsonrpc2.DecodeMessage(line)
	n2, ok := msg.(*jsonrpc2.Notification)
	if err != nil || !ok || n2.Method() != methodRefused {
		t.Fatalf("the answer to a request of %d bytes: %q, want a refusal", n, line)
	}
	var why refusal
	if err := json.Unmarshal(n2.Params(), &why); err != nil {
		t.Fatal(err)
	}
	return why
}

// A request longer than MaxRequest is refused without being read to its end, connections past
// maxConns are told the process is busy, the heap comes back to where it was, and the socket answers
// as before.
func TestOversizedRequestIsRefused(t *testing.T) {
	root := cartWorkspace(t)
	s := open(t, Options{Root: root, Listen: true})
	ctx := context.Background()
	ask := func() {
		t.Helper()
		raw, err := askJSON(ctx, root, index.Request{Text: "add to cart", Format: "json"})
		if err != nil || !strings.Contains(string(raw), "shop/cart.go") {
			t.Fatalf("Ask: %v %.200s", err, raw)
		}
	}
	ask() // what the first answer loads stays loaded
	path, err := SocketPath(root)
	if err != nil {
		t.Fatal(err)
	}
	before := heapAfterGC()
	var m runtime.MemStats
	runtime.ReadMemStats(&m)
	allocated := m.TotalAlloc

	// eight clients at once, each sending 64 MiB
	var wg sync.WaitGroup
	for range 8 {
		wg.Go(func() {
			if ans := sendAndRead(t, path, 64<<20); !strings.Contains(ans.Message, "longer than") {
				t.Errorf("a request of 64 MiB: %+v, want it refused as too long", ans)
			}
		})
	}
	wg.Wait()
	runtime.ReadMemStats(&m)
	// each refused request holds at most MaxRequest and a buffer's growth beyond it
	if got := m.TotalAlloc - allocated; got > 8*4*MaxRequest {
		t.Errorf("refusing 8 requests of 64 MiB allocated %d MiB", got>>20)
	} else {
		t.Logf("refusing 8 requests of 64 MiB allocated %d MiB", got>>20)
	}

	// idle connections take every slot; the next one is refused at once
	filetest.Eventually(t, 10*time.Second, "the connections freed after their answers", func() bool { return len(s.listener.slots) == 0 })
	var idle []net.Conn
	for range maxConns {
		c, err := net.Dial("unix", path)
		if err != nil {
			t.Fatal(err)
		}
		idle = append(idle, c)
	}
	filetest.Eventually(t, 10*time.Second, "every idle connection served", func() bool { return len(s.listener.slots) == maxConns })
	if ans := sendAndRead(t, path, 10); !strings.Contains(ans.Message, "busy") || !ans.Busy {
		t.Errorf("a connection past %d: %+v, want busy", maxConns, ans)
	}
	// a busy process is asked again, never taken for none: the answer comes once a slot frees
	time.AfterFunc(300*time.Millisecond, func() {
		for _, c := range idle {
			c.Close()
		}
	})
	if raw, err := askJSON(ctx, root, index.Request{Text: "add to cart", Format: "json"}); err != nil || !strings.Contains(string(raw), "shop/cart.go") {
		t.Errorf("Ask while every slot is taken for 300 ms: %v %.200s, want the pack once a slot frees", err, raw)
	}
	filetest.Eventually(t, 10*time.Second, "an answer once the idle connections closed", func() bool {
		_, err := askJSON(ctx, root, index.Request{Text: "add to cart"})
		return err == nil
	})
	ask()
	// a request too long for the socket is not sent: Ask answers it in its own process
	if _, err := askJSON(ctx, root, index.Request{Text: strings.Repeat("cart ", MaxRequest/4)}); !errors.Is(err, ErrTooLarge) || !errors.Is(err, ErrNoSession) {
		t.Errorf("Ask with a text over MaxRequest: %v, want ErrTooLarge, an ErrNoSession", err)
	}
	if after := heapAfterGC(); float64(after) > 1.1*float64(before) {
		t.Errorf("heap %d KiB after the refused requests, %d KiB before", after>>10, before>>10)
	} else {
		t.Logf("heap %d KiB before, %d KiB after", before>>10, after>>10)
	}
}

// A socket file removed under a listening session is made again within a second, and one that
// another listener took is left to it: the session stops listening instead of removing it.
func TestRemovedSocketIsMadeAgain(t *testing.T) {
	root := cartWorkspace(t)
	s := open(t, Options{Root: root, Listen: true})
	ctx := context.Background()
	path := s.listener.path
	if _, err := askJSON(ctx, root, index.Request{Text: "add to cart"}); err != nil {
		t.Fatal(err)
	}
	if err := os.Remove(path); err != nil {
		t.Fatal(err)
	}
	start := time.Now()
	for {
		if _, err := askJSON(ctx, root, index.Request{Text: "add to cart"}); err == nil {
			break
		} else if time.Since(start) > 5*time.Second { // made again within a second; more on a loaded machine
			t.Fatalf("no answer %s after the socket was removed: %v", time.Since(start), err)
		}
		time.Sleep(10 * time.Millisecond)
	}
	t.Logf("answered again %s after the socket was removed", time.Since(start).Round(time.Millisecond))

	// another listener replaces the file: the session leaves it alone
	os.Remove(path)
	other, err := net.Listen("unix", path)
	if err != nil {
		t.Fatal(err)
	}
	defer other.Close()
	time.Sleep(3 * socketCheck)
	s.Close()
	if _, err := os.Stat(path); err != nil {
		t.Errorf("the other listener's socket after the session closed: %v", err)
	}
}

// An answer that takes seconds is preceded by a progress line each second, which the asker hears, and
// so is not given up on however long it takes.
func TestSlowAnswerSaysHowItGoes(t *testing.T) {
	root := cartWorkspace(t)
	s := open(t, Options{Root: root, Listen: true})
	// the index held as a reopening holds it: every read waits
	s.ix.mu.Lock()
	held := 2*progressEvery + progressEvery/2
	time.AfterFunc(held, s.ix.mu.Unlock)
	var mu sync.Mutex
	var notes []string
	ctx := WithProgress(context.Background(), func(n string) {
		mu.Lock()
		notes = append(notes, n)
		mu.Unlock()
	})
	start := time.Now()
	es, err := OpEntities.Ask(ctx, root, EntitiesArgs{Top: 5})
	if err != nil {
		t.Fatalf("AskEntities while the index is held: %v", err)
	}
	mu.Lock()
	defer mu.Unlock()
	if time.Since(start) < held || len(notes) < 2 || notes[0] != "making the answer" {
		t.Errorf("answered after %s with %d entities and the progress %q; want two lines or more before it", time.Since(start), len(es), notes)
	}
}

// A process that is stopping refuses new work and gives no answer made meanwhile as whole: a request
// waiting for the first build when the stop comes is told the process stops (the command answers in
// its own process), never "nothing to read" from the index the stop cut short.
func TestStoppingProcessGivesNoAnswerAsWhole(t *testing.T) {
	root := cartWorkspace(t)
	ctx := context.Background()
	var s *Session
	s, err := Open(ctx, Options{Root: root, Listen: true, Logf: t.Logf, Stop: func() { go s.Close() }})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { s.Close() })
	s.first.yield.Lock() // the build waits, as behind a long partial answer
	s.Start()
	sock, err := SocketPath(root)
	if err != nil {
		t.Fatal(err)
	}
	got := make(chan error, 1)
	go func() {
		_, err := OpEntities.Ask(ctx, root, EntitiesArgs{Top: 5})
		got <- err
	}()
	filetest.Eventually(t, 10*time.Second, "the request to reach the process", func() bool {
		s.life.mu.Lock()
		defer s.life.mu.Unlock()
		return s.life.inFlight > 0
	})
	if _, err := OpStop.askAt(ctx, sock, None{}); err != nil {
		t.Fatalf("stop: %v", err)
	}
	select {
	case err = <-got:
	case <-time.After(10 * time.Second):
		t.Fatal("no answer 10 s after the stop")
	}
	s.first.yield.Unlock()
	if err == nil || !errors.Is(err, ErrNoSession) {
		t.Errorf("a request answered while the process stops: %v, want ErrNoSession (answered elsewhere)", err)
	}
	if _, err := OpEntities.Ask(ctx, root, EntitiesArgs{Top: 5}); !errors.Is(err, ErrNoSession) {
		t.Errorf("a request after the stop: %v, want ErrNoSession", err)
	}
}

// askJSON is the pack the session of root answers req with, as JSON.
func askJSON(ctx context.Context, root string, req index.Request) (json.RawMessage, error) {
	p, err := OpContext.Ask(ctx, root, req)
	if err != nil {
		return nil, err
	}
	return json.Marshal(p)
}
