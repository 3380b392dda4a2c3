package walk

import (
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"syscall"
)

// ErrNotRegular is the error for a path that is not a regular file: a FIFO, a device, a socket, a
// folder.
var ErrNotRegular = errors.New("not a regular file")

// ReadRegular reads the regular file at path, at most limit bytes: a FIFO, a device or a folder is
// refused before it is read (it could block or never end), and a larger file is refused. The error
// never holds the file's content.
func ReadRegular(path string, limit int64) ([]byte, error) {
	// O_NONBLOCK: opening a FIFO put in place after the check does not wait for a writer
	f, err := os.OpenFile(path, os.O_RDONLY|syscall.O_NONBLOCK, 0)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	fi, err := f.Stat()
	if err != nil {
		return nil, err
	}
	if !fi.Mode().IsRegular() {
		return nil, fmt.Errorf("%s: %w", path, ErrNotRegular)
	}
	if fi.Size() > limit {
		return nil, fmt.Errorf("%s: %d bytes, over the limit of %d", path, fi.Size(), limit)
	}
	data, err := io.ReadAll(io.LimitReader(f, limit+1))
	if err != nil {
		return nil, err
	}
	if int64(len(data)) > limit {
		return nil, fmt.Errorf("%s: over the limit of %d bytes", path, limit)
	}
	return data, nil
}

// ReadInside reads the regular file at path like ReadRegular, and only if, with every symlink
// resolved, it lies inside root.
func ReadInside(root, path string, limit int64) ([]byte, error) {
	realRoot, err := filepath.EvalSymlinks(root)
	if err != nil {
		return nil, err
	}
	real, err := filepath.EvalSymlinks(path)
	if err != nil {
		return nil, err
	}
	if rel, err := filepath.Rel(realRoot, real); err != nil || !filepath.IsLocal(rel) {
		return nil, fmt.Errorf("%s: leads outside the workspace", path)
	}
	return ReadRegular(real, limit)
}
