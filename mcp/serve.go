package mcp

import (
	"context"
	"sync"
	"time"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/ctxmap/ctxmap/index"
	"github.com/ctxmap/ctxmap/watch"
)

// Serve builds the index in the background and answers MCP requests on t until the client leaves
// or ctx ends, keeping the index current with the disk meanwhile.
func Serve(ctx context.Context, ix *index.Index, t sdk.Transport, version string, logf func(string, ...any)) error {
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	ready := make(chan struct{})
	built := make(chan struct{})
	go func() {
		defer close(built)
		if _, err := ix.Build(ctx, nil); err != nil && ctx.Err() == nil {
			logf("build: %v", err)
		}
		close(ready)
	}()
	stop := follow(ctx, ix, logf)
	defer func() {
		cancel()
		stop()
		<-built
	}()
	return NewServer(ix, version, ready).Run(ctx, t)
}

// follow feeds the watcher's batches to the index; without a watcher (no inotify, a limit reached)
// the tools still answer from the index as it was built.
func follow(ctx context.Context, ix *index.Index, logf func(string, ...any)) (stop func()) {
	w, err := watch.New(ix.Root(), watch.Options{Debounce: 50 * time.Millisecond, Walk: ix.Config().WalkOptions()})
	if err != nil {
		logf("not watching the disk: %v", err)
		return func() {}
	}
	var wg sync.WaitGroup
	wg.Add(2)
	go func() {
		defer wg.Done()
		for b := range w.Batches() {
			var err error
			if b.Rescan {
				_, err = ix.Build(ctx, nil)
			} else if len(b.Paths) > 0 {
				err = ix.Update(ctx, b.Paths)
			}
			if err != nil && ctx.Err() == nil {
				logf("update: %v", err)
			}
		}
	}()
	go func() {
		defer wg.Done()
		for msg := range w.Warnings() {
			logf("%s", msg)
		}
	}()
	return func() {
		if err := w.Close(); err != nil {
			logf("close the watcher: %v", err)
		}
		wg.Wait()
	}
}
