package index

// Writing a build's batches: each batch of read files into the records, the lexical store and the
// vectors, one batch at a time.

import (
	"context"
	"errors"
	"fmt"
	"io/fs"

	"github.com/ctxmap/ctxmap/internal/bm25"
	"github.com/ctxmap/ctxmap/internal/store"
)

// batchWriter reads and parses the files of a build a batch at a time and sends each batch's chunks
// to the stores at once, so that a cold build holds one batch's chunks, not the whole workspace's.
type batchWriter struct {
	ix       *Index
	old      *Snapshot
	files    map[string]*store.Entry // the next snapshot's entries, updated as files are read
	skipped  map[string]string
	read     map[string]*Record // the files the batches wrote, nil for those gone
	wrote    bool               // the lexical index was written to
	lexBatch int
}

// load reads work and stores what it reads; stopped when ctx ended first.
func (b *batchWriter) load(ctx context.Context, work []fileStat, progress Progress) (stopped bool, err error) {
	ix := b.ix
	// A lexical batch is a segment that bleve merges later: a small build's load batch goes in one
	// (cli/cli indexes a few percent faster than in batches of 500), a large build's in batches of 500,
	// which keep its peak 90 MB lower on a 30,000-file tree.
	b.lexBatch = 4096
	if len(work) >= bigBuild {
		b.lexBatch = 500
	}
	ix.lastParsed, ix.lastTaken = 0, 0
	batches, stop := ix.loadAhead(ctx, work, b.old, progress)
	defer stop()
	from := 0
	for results := range batches {
		batch := work[from : from+len(results)]
		from += len(results)
		ix.readAgain(batch)
		if err := b.store(results); err != nil {
			return false, err
		}
		ix.vectors.Nudge()
	}
	return from < len(work), nil
}

// store takes one batch's results into the entries and their chunks into the stores, in place of the
// chunks of the files' old records.
func (b *batchWriter) store(results []loaded) error {
	ix := b.ix
	var del []string
	var docs []bm25.Doc
	for _, res := range results {
		switch {
		case res.reused:
			b.files[res.path] = store.EntryOf(res.rec)
			continue
		case res.err != nil:
			// deleted mid-index, unreadable: it is simply not there
			if !errors.Is(res.err, fs.ErrNotExist) {
				b.skipped[res.path] = "unreadable"
				ix.warn("%v", res.err)
			}
			delete(b.files, res.path)
		default:
			if res.partial {
				ix.lastTaken++
			} else {
				ix.lastParsed++
				ix.parsed.Add(1)
			}
			if res.warning != "" {
				ix.warn("%s", res.warning)
			}
			if ix.keep != nil {
				ix.keep.put(res)
			}
			b.files[res.path] = store.EntryOf(res.rec)
			delete(b.skipped, res.path)
			if res.rec.Skip != "" {
				b.skipped[res.path] = res.rec.Skip
			}
			for i, c := range res.chunks {
				docs = append(docs, bm25.Doc{ID: c.ID, Fields: res.terms[i]})
			}
			ix.putVectors(res.path, res.chunks)
		}
		// new content or none: the old chunks go
		b.read[res.path] = res.rec
		if r := b.old.Record(res.path); r != nil {
			del = append(del, chunkIDs(r)...)
			if b.files[res.path] == nil {
				ix.vectors.Remove(res.path)
			}
		}
	}
	if len(del) > 0 || len(docs) > 0 {
		return b.write(del, docs)
	}
	return nil
}

// write deletes and adds chunks in the lexical index, a lexical batch at a time.
func (b *batchWriter) write(del []string, docs []bm25.Doc) error {
	if !b.wrote {
		// until the generation is written again, the next start sees that the lexical index does not
		// match the saved state and rebuilds it: a crash midway leaves no half-written index in use
		if err := b.ix.lex.SetMeta("generation", nil); err != nil {
			return fmt.Errorf("write lexical generation: %w", err)
		}
		b.wrote = true
	}
	for i := 0; i < len(docs) || i == 0; i += b.lexBatch {
		if i > 0 {
			del = nil
		}
		if err := b.ix.lex.Replace(del, docs[i:min(i+b.lexBatch, len(docs))]); err != nil {
			return err
		}
	}
	return nil
}
