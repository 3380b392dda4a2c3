//go:build !unix

package walk

import (
	"io/fs"
	"os"
)

func readable(path string, _ fs.FileInfo) bool {
	f, err := os.Open(path)
	if err != nil {
		return false
	}
	f.Close()
	return true
}
