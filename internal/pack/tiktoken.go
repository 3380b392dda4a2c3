package pack

import (
	"bytes"
	"encoding/base64"
	"fmt"
	"path"
	"sync"

	"github.com/pkoukk/tiktoken-go-loader/assets"
)

// embeddedRanks reads the encodings' rank files that ship inside the module, as the library's offline
// loader does, in a third of its time: the map is made at its final size and no line becomes a string.
// The token counter loads while a one-shot query opens the index, and was the largest part of it.
type embeddedRanks struct{}

// loadedRanks are the rank maps the library loaded, by file name, which the piece counter shares.
var (
	ranksMu     sync.Mutex
	loadedRanks = map[string]map[string]int{}
)

func (embeddedRanks) LoadTiktokenBpe(file string) (map[string]int, error) {
	data, err := assets.Assets.ReadFile(path.Base(file))
	if err != nil {
		return nil, err
	}
	ranks := make(map[string]int, bytes.Count(data, []byte{'\n'})+1)
	var token [256]byte
	for n := 1; len(data) > 0; n++ {
		var line []byte
		line, data, _ = bytes.Cut(data, []byte{'\n'})
		if len(line) == 0 {
			continue
		}
		enc, num, ok := bytes.Cut(line, []byte{' '})
		if !ok || base64.StdEncoding.DecodedLen(len(enc)) > len(token) || len(num) == 0 || len(num) > 9 {
			return nil, fmt.Errorf("%s:%d: not a rank line", file, n)
		}
		size, err := base64.StdEncoding.Decode(token[:], enc)
		if err != nil {
			return nil, fmt.Errorf("%s:%d: %w", file, n, err)
		}
		rank := 0
		for _, c := range num {
			if c < '0' || c > '9' {
				return nil, fmt.Errorf("%s:%d: not a rank line", file, n)
			}
			rank = rank*10 + int(c-'0')
		}
		ranks[string(token[:size])] = rank
	}
	ranksMu.Lock()
	loadedRanks[path.Base(file)] = ranks
	ranksMu.Unlock()
	return ranks, nil
}
