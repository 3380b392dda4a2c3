package server

import (
	"context"
	"fmt"
	"sync"
	"time"

	"go.lsp.dev/protocol"

	"github.com/ctxmap/ctxmap/index"
	"github.com/ctxmap/ctxmap/session"
)

// progress reports one piece of work ($/progress begin, report, end) to a client that declared
// window.workDoneProgress; for other clients it does nothing.
type progress struct {
	s     *Server
	sess  *session.Session // whose build it reports
	token string           // "" when nothing is reported
	unit  string           // what Report counts: files, then chunks

	mu   sync.Mutex
	pct  uint32
	last time.Time
}

// Tokens are plain strings: the library's ProgressToken marshals as {} when passed by value.
type tokenParams struct {
	Token string `json:"token"`
}

type progressParams struct {
	Token string `json:"token"`
	Value any    `json:"value"`
}

// reportEvery keeps a build over thousands of files from flooding the client.
const reportEvery = 100 * time.Millisecond

func (s *Server) beginProgress(title, message string) *progress {
	s.mu.Lock()
	enabled := s.caps.progress
	s.progress++
	n := s.progress
	s.mu.Unlock()
	p := &progress{s: s, unit: "files"}
	if !enabled {
		return p
	}
	token := fmt.Sprintf("ctxmap-index-%d", n)
	if err := s.call(protocol.MethodWorkDoneProgressCreate, &tokenParams{Token: token}, nil); err != nil {
		s.logf("create progress %s: %v", token, err)
		return p
	}
	p.token = token
	s.notify(protocol.MethodProgress, &progressParams{Token: token, Value: &protocol.WorkDoneProgressBegin{
		Kind: protocol.WorkDoneProgressKindBegin, Title: title, Message: message}})
	return p
}

// Report is called by the index's workers, concurrently.
func (p *progress) Report(done, total int) {
	if p.token == "" || total <= 0 {
		return
	}
	pct := uint32(done * 100 / total)
	p.mu.Lock()
	defer p.mu.Unlock()
	if pct == p.pct && done < total || time.Since(p.last) < reportEvery && done < total {
		return
	}
	p.pct, p.last = pct, time.Now()
	p.s.notify(protocol.MethodProgress, &progressParams{Token: p.token, Value: &protocol.WorkDoneProgressReport{
		Kind: protocol.WorkDoneProgressKindReport, Percentage: pct,
		Message: fmt.Sprintf("%s/%s %s", index.Thousands(done), index.Thousands(total), p.unit)}})
}

func (p *progress) End(message string) {
	if p.token == "" {
		return
	}
	p.mu.Lock()
	p.s.notify(protocol.MethodProgress, &progressParams{Token: p.token, Value: &protocol.WorkDoneProgressEnd{
		Kind: protocol.WorkDoneProgressKindEnd, Message: message}})
	p.mu.Unlock()
	if p.unit == "files" && p.sess != nil {
		go p.s.embeddingProgress(p.sess)
	}
}

// embeddingProgress follows the chunks a build left to embed, as the command line's second bar does:
// a stage of its own, begun only when some are still waiting.
func (s *Server) embeddingProgress(sess *session.Session) {
	counts := func() (done, total int) {
		if err := sess.Read(context.Background(), func(ix *index.Index) error {
			done, total = ix.VectorProgress()
			return nil
		}); err != nil {
			return 0, 0 // closed: nothing more to follow
		}
		return done, total
	}
	if done, total := counts(); done >= total {
		return
	}
	p := s.beginProgress("ctxmap", "embedding")
	p.unit = "chunks"
	for {
		done, total := counts()
		p.Report(done, total)
		if done >= total {
			break
		}
		time.Sleep(reportEvery)
	}
	p.End("vectors ready")
}
