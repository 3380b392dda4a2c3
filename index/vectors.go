package index

import (
	"path/filepath"

	"github.com/ctxmap/ctxmap/internal/embed"
	"github.com/ctxmap/ctxmap/internal/records"
	"github.com/ctxmap/ctxmap/internal/store"
	"github.com/ctxmap/ctxmap/internal/vector"
)

// newVectors starts the background filler of the vector store under the cache (none in memory), or
// reads the store of the cache another process holds (Options.ReadHeld) where it lies; without e,
// off says why there are no vectors.
func (ix *Index) newVectors(e embed.Embedder, off string) *vector.Indexer {
	opts := vector.IndexerOptions{Embedder: e, Off: off, Warn: ix.warn, ReadOnly: ix.held != "",
		Contents:  func() vector.Contents { return vectorContents{ix.Snapshot(), ix} },
		MoveAside: func(p string) string { return store.MoveAside(ix.cache, p) }}
	dir := ix.cache
	if ix.held != "" {
		dir = ix.held
	}
	if dir != "" {
		opts.Dir, opts.GenFile = filepath.Join(dir, "vectors"), filepath.Join(dir, "vectors.gen")
	}
	return vector.NewIndexer(opts)
}

// vectorContents is what the vectors of a snapshot are made from: its files' chunks.
type vectorContents struct {
	s  *Snapshot
	ix *Index
}

func (c vectorContents) Files() int      { return c.s.files.Len() }
func (c vectorContents) Paths() []string { return c.s.Paths }

func (c vectorContents) HasContent(p string) bool {
	r := c.s.Record(p)
	return r != nil && r.File != nil
}

func (c vectorContents) Docs(p string) ([]vector.Doc, error) {
	src, err := c.ix.ReadFile(p)
	if err != nil {
		return nil, err
	}
	return vector.DocsOf(records.Chunks(p, c.s.Record(p).File, src, c.ix.cfg.Mappings)), nil
}

// putVectors queues a file's chunks for embedding, when there are vectors.
func (ix *Index) putVectors(path string, cs []records.Chunk) {
	if ix.vectors.On() {
		ix.vectors.Put(path, vector.DocsOf(cs))
	}
}

// VectorStatus names the model the vectors come from, or says why there are none.
func (ix *Index) VectorStatus() string { return ix.vectors.Status() }

// VectorProgress counts the chunks embedded and the chunks queued for embedding since the index
// opened; a front end shows it while it waits for the vectors.
func (ix *Index) VectorProgress() (done, total int) { return ix.vectors.Progress() }

// LoadVectors loads the vector store now rather than when it is first written: a long-running
// process then searches it in memory, and damage to it is found and repaired now, not by a query.
func (ix *Index) LoadVectors() { ix.vectors.Load() }

// WaitVectors blocks until the background embeddings have caught up with the current snapshot, so
// that a one-shot query (the CLI, the benchmark) sees all of them and answers deterministically.
func (ix *Index) WaitVectors() { ix.vectors.Wait() }
