package index

import (
	"errors"
	"fmt"
	"strconv"
	"strings"

	"github.com/ctxmap/ctxmap/internal/parse"
)

// ErrEmpty marks a workspace with no file the index reads: nothing a pack or a map could hold.
var ErrEmpty = errors.New("nothing to read")

// Empty says why the index holds no file, nil when it holds some: the folder is empty, or every file
// in it was skipped, and why.
func (st Stats) Empty() error {
	if st.Files > 0 {
		return nil
	}
	if len(st.Skipped) == 0 {
		return fmt.Errorf("%w: %s is empty (or every file in it is ignored)", ErrEmpty, st.Root)
	}
	var langs string
	if st.Skipped["unsupported"] > 0 {
		langs = "; ctxmap reads " + strings.Join(parse.Languages(), ", ")
	}
	return fmt.Errorf("%w: every file in %s was skipped (%s)%s", ErrEmpty, st.Root, Counts(st.Skipped, strconv.Itoa), langs)
}
