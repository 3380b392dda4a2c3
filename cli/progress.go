package cli

import (
	"fmt"
	"io"
	"os"
	"sync"
	"time"

	"github.com/schollz/progressbar/v3"
	"golang.org/x/term"

	"github.com/ctxmap/ctxmap/index"
)

// buildProgress shows the long work of a command that builds the index first: on a terminal a bar for
// the files parsed, then one for the chunks embedded; elsewhere (a pipe, a log) nothing until the one
// summary line. A build that read nothing new says nothing.
type buildProgress struct {
	w     io.Writer
	tty   bool
	quiet bool
	start time.Time

	mu  sync.Mutex
	bar *progressbar.ProgressBar
	// how much the bars counted, for the summary
	parsed, embedded int
	embedTime        time.Duration
}

func (e *env) progress() *buildProgress {
	f, ok := e.stderr.(*os.File)
	return &buildProgress{w: e.stderr, tty: ok && term.IsTerminal(int(f.Fd())) && os.Getenv("TERM") != "dumb", quiet: e.quiet, start: time.Now()}
}

func (p *buildProgress) newBar(total int, what, unit string) *progressbar.ProgressBar {
	return progressbar.NewOptions(total,
		progressbar.OptionSetWriter(p.w),
		progressbar.OptionSetDescription(what),
		progressbar.OptionSetItsString(unit),
		progressbar.OptionShowCount(),
		progressbar.OptionShowIts(),
		progressbar.OptionSetPredictTime(true),
		progressbar.OptionSetWidth(24),
		progressbar.OptionThrottle(80*time.Millisecond),
		progressbar.OptionClearOnFinish(),
	)
}

// files is the index's Progress: called by its workers, concurrently, perhaps out of order.
func (p *buildProgress) files(done, total int) {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.parsed = max(p.parsed, done)
	if !p.tty || p.quiet {
		return
	}
	if p.bar == nil {
		p.bar = p.newBar(total, "ctxmap: parsing", "files")
	}
	if done >= p.bar.GetMax() || done > int(p.bar.State().CurrentNum) {
		_ = p.bar.Set(done)
	}
}

// endFiles closes the files' bar once the build is over.
func (p *buildProgress) endFiles() {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.bar != nil {
		_ = p.bar.Finish()
		_ = p.bar.Clear()
		p.bar = nil
	}
}

// vectors waits for the index's embeddings to catch up, with a bar while it waits.
func (p *buildProgress) vectors(ix *index.Index) {
	done, total := ix.VectorProgress()
	if done >= total {
		ix.WaitVectors()
		p.embedded = done
		return
	}
	start := time.Now()
	waited := make(chan struct{})
	go func() { ix.WaitVectors(); close(waited) }()
	var bar *progressbar.ProgressBar
	if p.tty && !p.quiet {
		bar = p.newBar(total, "ctxmap: embedding", "chunks")
	}
	tick := time.NewTicker(100 * time.Millisecond)
	defer tick.Stop()
	for {
		select {
		case <-waited:
		case <-tick.C:
			if bar != nil {
				done, total := ix.VectorProgress()
				bar.ChangeMax(total)
				_ = bar.Set(done)
			}
			continue
		}
		break
	}
	if bar != nil {
		_ = bar.Finish()
		_ = bar.Clear()
	}
	p.embedded, _ = ix.VectorProgress()
	p.embedTime = time.Since(start)
}

// summary is the one line that says what the long work did; nothing when there was none.
func (p *buildProgress) summary(st index.Stats) {
	if p.quiet || st.Parsed == 0 {
		return
	}
	line := fmt.Sprintf("ctxmap: indexed %s files (%s parsed) in %.1fs", index.Thousands(st.Files), index.Thousands(st.Parsed), st.Seconds)
	if p.embedTime > 0 {
		line += fmt.Sprintf(", %s chunks embedded, %.1fs more", index.Thousands(p.embedded), p.embedTime.Seconds())
	}
	fmt.Fprintln(p.w, line)
}
