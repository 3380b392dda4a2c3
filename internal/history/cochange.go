package history

import "math"

// Companion is a file that changed together with a given one: in how many of its commits, and how
// much that says (confidence: the weighted share of the given file's commits that also touched it).
type Companion struct {
	Path       string
	Commits    int
	Confidence float64
}

// Co-change as ROSE mines it (Zimmermann et al., "Mining version histories to guide software
// changes"): the support of "changed with" over a file's commits, a commit touching many files saying
// less of each pair, a recent commit more than an old one.
const (
	companionFiles  = 24  // commits touching more files say nothing of a pair
	companionDecay  = 200 // commits after which a pair's evidence counts half
	minCompanionsOf = 2   // a file changed fewer times has no companions worth naming
)

// Companions are the files that changed with path, most confident first, each seen in at least
// minCommits of its commits; at most k.
func (l *Log) Companions(path string, minCommits, k int) []Companion {
	own := l.FileHistory(path)
	if len(own) < minCompanionsOf {
		return nil
	}
	support := map[string]float64{}
	count := map[string]int{}
	total := 0.0
	for _, ci := range own {
		c := l.Commits[ci]
		if len(c.Files) > companionFiles {
			continue
		}
		w := math.Pow(0.5, float64(ci)/companionDecay) / math.Log2(1+float64(len(c.Files)))
		total += w
		for _, f := range c.Files {
			if f != path {
				support[f] += w
				count[f]++
			}
		}
	}
	var out []Companion
	for f, s := range support {
		if count[f] >= minCommits {
			out = append(out, Companion{Path: f, Commits: count[f], Confidence: s / total})
		}
	}
	byScore(out, func(c Companion) (float64, string) { return c.Confidence, c.Path })
	if len(out) > k {
		out = out[:k]
	}
	return out
}
