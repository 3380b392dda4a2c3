package index

// Overlays: an editor's unsaved buffers read in place of the files on disk.

import (
	"fmt"
	"path/filepath"

	"github.com/ctxmap/ctxmap/internal/walk"
)

// ReadFile returns a workspace file's content, the editor's unsaved text first.
func (ix *Index) ReadFile(rel string) ([]byte, error) {
	ix.overlayMu.Lock()
	b, ok := ix.overlay[rel]
	ix.overlayMu.Unlock()
	if ok {
		return b, nil
	}
	abs := filepath.Join(ix.root, filepath.FromSlash(rel))
	if !walk.Inside(ix.root, abs) {
		return nil, fmt.Errorf("%s is outside the workspace", rel)
	}
	// regular files only: one replaced by a FIFO or a link to a device since it was listed is not read
	return walk.ReadRegular(abs, maxReadFile)
}

// maxReadFile bounds a workspace file read whole; the walk skips files far smaller (maxFileSize).
const maxReadFile = 1 << 30

// SetOverlay makes text the content of rel until ClearOverlay (an editor's unsaved buffer); call Update
// afterwards to index it.
func (ix *Index) SetOverlay(rel string, text []byte) {
	ix.overlayMu.Lock()
	ix.overlay[rel] = text
	ix.overlayMu.Unlock()
}

// ClearOverlay goes back to the file on disk; call Update afterwards. The file is read again then: the
// record made from the buffer carries the file's size and time, which did not change.
func (ix *Index) ClearOverlay(rel string) {
	ix.overlayMu.Lock()
	if _, ok := ix.overlay[rel]; ok {
		delete(ix.overlay, rel)
		ix.reread[rel] = true
	}
	ix.overlayMu.Unlock()
}

// fromBuffer tells whether rel's content is, or last was, an editor's buffer: its size and time on
// disk say nothing about it.
func (ix *Index) fromBuffer(rel string) bool {
	ix.overlayMu.Lock()
	defer ix.overlayMu.Unlock()
	_, ok := ix.overlay[rel]
	return ok || ix.reread[rel]
}

// readAgain forgets the closed buffers among paths once they were read from disk.
func (ix *Index) readAgain(paths []fileStat) {
	ix.overlayMu.Lock()
	defer ix.overlayMu.Unlock()
	for _, f := range paths {
		delete(ix.reread, f.path)
	}
}
