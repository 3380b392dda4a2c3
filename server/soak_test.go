package server

import (
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/ctxmap/ctxmap/session"
)

// Soak: the real server process under simulated editing (typing, saves, files created and deleted on
// disk, hovers and context requests) for a while; its resident memory, live heap and goroutines must
// stay flat once it has warmed up. The default is a short run (eight samples, a second apart);
// CTXMAP_SOAK=1h runs an hour.
func TestSoak(t *testing.T) {
	t.Parallel()
	skipOffLinux(t, "the resident size")
	length := 8 * time.Second
	if v := os.Getenv("CTXMAP_SOAK"); v != "" {
		d, err := time.ParseDuration(v)
		if err != nil {
			t.Fatalf("CTXMAP_SOAK=%q: %v", v, err)
		}
		length = d
	}
	root := workspaceCopy(t, "notes")
	p := startProcess(t, root)
	p.initialize(t)
	p.waitReady()
	text := p.read("gist/gist.go")
	p.open("gist/gist.go", text)
	pos := positionOf(t, text, "Gist", 0, 1)

	// the work repeats with a period, so the index's own size is bounded: growth is a leak
	const variants = 25
	every := max(length/40, time.Second)
	var samples []sample
	began := time.Now()
	next := began
	var hovers, contexts, diskEdits int
	for i := 0; time.Since(began) < length; i++ {
		v := i % variants
		p.notify("textDocument/didChange", map[string]any{
			"textDocument":   map[string]any{"uri": p.uri("gist/gist.go"), "version": i + 2},
			"contentChanges": []map[string]any{{"text": text + fmt.Sprintf("\nfunc Edit%d() {}\n", v)}},
		})
		if i%5 == 0 {
			hovers++
			if h := p.hover("gist/gist.go", pos); h == nil {
				t.Fatalf("no hover after %d edits", i)
			}
		}
		if i%20 == 0 {
			contexts++
			var pack struct{ Tokens, Budget int }
			if err := p.command(cmdContext, map[string]any{"text": fmt.Sprintf("publishing gist %d loses its files", v), "budget": 1500}, &pack); err != nil {
				t.Fatalf("context after %d edits: %v", i, err)
			}
		}
		if i%10 == 0 {
			diskEdits++
			writeFile(t, root, fmt.Sprintf("soak/f%d.go", v%8), fmt.Sprintf("package soak\n\n// Soak%d is edit %d.\nfunc Soak%d() {}\n", v, i, v))
		}
		if i%30 == 15 {
			diskEdits++
			if err := os.RemoveAll(filepath.Join(root, "soak", fmt.Sprintf("f%d.go", (v+3)%8))); err != nil {
				t.Fatal(err)
			}
		}
		if now := time.Now(); !now.Before(next) {
			samples = append(samples, p.sample(t))
			next = now.Add(every)
		}
		time.Sleep(20 * time.Millisecond)
	}
	p.waitReady()
	samples = append(samples, p.sample(t))
	t.Logf("%v of editing: %d hovers, %d context requests, %d changes on disk; %d samples", time.Since(began).Round(time.Second), hovers, contexts, diskEdits, len(samples))

	// the first third warms up (caches, index segments, the runtime's own pools); then compare the
	// middle third with the last
	third := len(samples) / 3
	if third < 2 {
		t.Fatalf("only %d samples", len(samples))
	}
	mid, last := samples[third:2*third], samples[2*third:]
	for _, m := range []struct {
		name string
		get  func(sample) float64
		unit string
	}{
		{"resident memory", func(s sample) float64 { return s.rss / (1 << 20) }, "MiB"},
		{"live heap", func(s sample) float64 { return s.heap / (1 << 20) }, "MiB"},
		{"goroutines", func(s sample) float64 { return s.goroutines }, ""},
	} {
		before, after := median(mid, m.get), median(last, m.get)
		t.Logf("%s: %.1f%s warmed up, %.1f%s at the end (first sample %.1f%s)", m.name, before, m.unit, after, m.unit, m.get(samples[0]), m.unit)
		// flat: a few MiB of noise, or a tenth, whichever is more; goroutines come and go with requests
		if slack := max(before/10, 8); after > before+slack {
			t.Errorf("%s grew from %.1f%s to %.1f%s", m.name, before, m.unit, after, m.unit)
		}
	}
}

type sample struct{ rss, heap, goroutines float64 }

// sample reads the server process's resident size and asks it for its live heap and goroutines.
func (p *process) sample(t *testing.T) sample {
	t.Helper()
	var st session.Status
	if err := p.command(cmdStatus, nil, &st); err != nil {
		t.Fatalf("status: %v", err)
	}
	raw, err := os.ReadFile(fmt.Sprintf("/proc/%d/status", p.cmd.Process.Pid))
	if err != nil {
		t.Fatal(err)
	}
	var rss float64
	for _, line := range strings.Split(string(raw), "\n") {
		if f := strings.Fields(line); len(f) >= 2 && f[0] == "VmRSS:" {
			kb, _ := strconv.ParseFloat(f[1], 64)
			rss = kb * 1024
		}
	}
	if rss == 0 || st.LiveHeap == 0 || st.Goroutines == 0 {
		t.Fatalf("no figures: rss %v, status %+v", rss, st)
	}
	return sample{rss: rss, heap: float64(st.LiveHeap), goroutines: float64(st.Goroutines)}
}

func median(ss []sample, get func(sample) float64) float64 {
	vs := make([]float64, len(ss))
	for i, s := range ss {
		vs[i] = get(s)
	}
	sort.Float64s(vs)
	return vs[len(vs)/2]
}
