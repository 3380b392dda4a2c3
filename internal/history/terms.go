package history

import (
	"cmp"
	"math"
	"slices"
	"sort"
	"strconv"
	"strings"
	"sync"
	"unicode"

	"github.com/ctxmap/ctxmap/internal/words"
)

// TermCount is a stemmed term and the number of commits of a file whose message used it.
type TermCount struct {
	Term  string
	Count int
}

// FileScore is a file whose commit messages share terms with a query.
type FileScore struct {
	Path    string
	Score   float64
	Commits []string // subjects of the best matching commits (at most 3), to explain the result
}

// massFiles: a commit that touches more files than this (reformatting, vendoring, a licence header) says
// nothing about any one of them, so it gives no terms to its files and is not a search hit.
const massFiles = 100

type index struct {
	mu   sync.Mutex
	memo map[string]termsResult // answers of Terms

	commitTerms [][]string         // per commit: the distinct terms of its message, sorted
	files       map[string][]int32 // path -> commits (not mass) that touched it, newest first
	postings    map[string][]int32 // term -> commits whose message uses it, newest first
	fileTerms   map[string][]TermCount
	refs        map[int][]int32 // issue or pull request number -> commits whose message names it, newest first
	avgLen      float64         // mean number of commits per file, for length normalisation
}

func (l *Log) index() *index {
	l.once.Do(func() { l.idx = buildIndex(l.Commits) })
	return l.idx
}

func buildIndex(commits []Commit) *index {
	ix := &index{
		memo:        map[string]termsResult{},
		commitTerms: make([][]string, len(commits)),
		files:       map[string][]int32{},
		postings:    map[string][]int32{},
		fileTerms:   map[string][]TermCount{},
		refs:        map[int][]int32{},
	}
	for i, c := range commits {
		for _, n := range IssueRefs(c.Subject + "\n" + c.Body) {
			ix.refs[n] = append(ix.refs[n], int32(i))
		}
		ts := messageTerms(c.Subject, c.Body)
		ix.commitTerms[i] = ts
		for _, t := range ts {
			ix.postings[t] = append(ix.postings[t], int32(i))
		}
		if len(c.Files) > massFiles {
			continue
		}
		for _, f := range c.Files {
			if n := len(ix.files[f]); n > 0 && ix.files[f][n-1] == int32(i) {
				continue // a path listed twice in one commit
			}
			ix.files[f] = append(ix.files[f], int32(i))
		}
	}
	total := 0
	counts := map[string]int{}
	for f, cs := range ix.files {
		total += len(cs)
		clear(counts)
		for _, c := range cs {
			for _, t := range ix.commitTerms[c] {
				counts[t]++
			}
		}
		ix.fileTerms[f] = sortedCounts(counts)
	}
	if len(ix.files) > 0 {
		ix.avgLen = float64(total) / float64(len(ix.files))
	}
	return ix
}

// FileTerms returns the terms of the messages of the commits that touched path, each counted once per
// commit, most frequent first. Commits that touched more than massFiles files are left out.
func (l *Log) FileTerms(path string) []TermCount {
	if l == nil || !l.Available {
		return nil
	}
	tc := l.index().fileTerms[path]
	if len(tc) == 0 {
		return nil
	}
	return append([]TermCount(nil), tc...)
}

// Terms returns the terms of the commits that touched any of paths (mass commits aside) that occur at
// least minCount times, most frequent first, and the total weight of those commits. A commit counts
// once for each of the paths it touched, at most maxPathsPerCommit times: a commit about several of the
// files says more about them than one that touched a single file, and a sweeping commit cannot
// dominate. Only the newest maxCommitsPerPath commits of each path are read. Answers are remembered:
// the entity map asks the same questions after every edit.
func (l *Log) Terms(paths []string, minCount int) ([]TermCount, int) {
	if l == nil || !l.Available || len(paths) == 0 {
		return nil, 0
	}
	ix := l.index()
	key := strconv.Itoa(minCount) + "\x00" + strings.Join(paths, "\x00")
	ix.mu.Lock()
	r, ok := ix.memo[key]
	ix.mu.Unlock()
	if !ok {
		r = ix.terms(paths, minCount)
		ix.mu.Lock()
		if len(ix.memo) >= maxMemo {
			clear(ix.memo)
		}
		ix.memo[key] = r
		ix.mu.Unlock()
	}
	return append([]TermCount(nil), r.terms...), r.total
}

type termsResult struct {
	terms []TermCount
	total int
}

const (
	maxPathsPerCommit = 3
	maxCommitsPerPath = 30
	maxMemo           = 8192
)

func (ix *index) terms(paths []string, minCount int) termsResult {
	var cs []int32
	for _, p := range paths {
		fc := ix.files[p]
		cs = append(cs, fc[:min(len(fc), maxCommitsPerPath)]...)
	}
	slices.Sort(cs)
	counts := map[string]int{}
	total := 0
	for i := 0; i < len(cs); {
		j := i
		for j < len(cs) && cs[j] == cs[i] {
			j++
		}
		w := min(j-i, maxPathsPerCommit)
		total += w
		for _, t := range ix.commitTerms[cs[i]] {
			counts[t] += w
		}
		i = j
	}
	for t, n := range counts {
		if n < minCount {
			delete(counts, t)
		}
	}
	return termsResult{sortedCounts(counts), total}
}

func sortedCounts(counts map[string]int) []TermCount {
	tc := make([]TermCount, 0, len(counts))
	for t, n := range counts {
		tc = append(tc, TermCount{Term: t, Count: n})
	}
	sort.Slice(tc, func(i, j int) bool {
		if tc[i].Count != tc[j].Count {
			return tc[i].Count > tc[j].Count
		}
		return tc[i].Term < tc[j].Term
	})
	return tc
}

// FileCommits is the number of commits (mass commits aside) that touched path.
func (l *Log) FileCommits(path string) int {
	if l == nil || !l.Available {
		return 0
	}
	return len(l.index().files[path])
}

// TermCommits is the number of commits whose message uses the stemmed term: the document frequency
// that tells a project's everyday words from the specific ones.
func (l *Log) TermCommits(term string) int {
	if l == nil || !l.Available {
		return 0
	}
	return len(l.index().postings[term])
}

// BM25 parameters over "documents" made of a file's commit messages: term frequency is the number of
// the file's commits that use the term, length is its number of commits (a file that every commit
// touches, like a changelog, should not win every query).
const (
	bm25K1 = 1.2
	bm25B  = 0.75
	// recencyWeight keeps recency a tie-breaker: far below the weight of one matching term.
	recencyWeight = 0.01
)

// Search returns the files whose commit messages share the query's terms, best first, at most k (k <= 0:
// all). Terms are stemmed here, so "profiles" and "profile" match alike. Paths are those of the log:
// a file deleted since may appear, and the caller keeps the ones that still exist.
func (l *Log) Search(terms []string, k int) []FileScore {
	if l == nil || !l.Available || len(l.Commits) == 0 {
		return nil
	}
	ix := l.index()
	query := queryTerms(terms)
	n := float64(len(l.Commits))
	type acc struct {
		score   float64
		commits map[int32]float64 // matching commit -> sum of the idf of the terms it shares
	}
	files := map[string]*acc{}
	for _, t := range query {
		post := ix.postings[t]
		if len(post) == 0 {
			continue
		}
		df := float64(len(post))
		idf := math.Log(1 + (n-df+0.5)/(df+0.5))
		tf := map[string]int{}
		for _, c := range post {
			commit := &l.Commits[c]
			if len(commit.Files) > massFiles {
				continue
			}
			for _, f := range commit.Files {
				tf[f]++
				a := files[f]
				if a == nil {
					a = &acc{commits: map[int32]float64{}}
					files[f] = a
				}
				a.commits[c] += idf
			}
		}
		for f, freq := range tf {
			length := float64(len(ix.files[f]))
			norm := 1 - bm25B + bm25B*length/ix.avgLen
			files[f].score += idf * float64(freq) * (bm25K1 + 1) / (float64(freq) + bm25K1*norm)
		}
	}
	out := make([]FileScore, 0, len(files))
	for f, a := range files {
		ids := make([]int32, 0, len(a.commits))
		for c := range a.commits {
			ids = append(ids, c)
		}
		sort.Slice(ids, func(i, j int) bool {
			if a.commits[ids[i]] != a.commits[ids[j]] {
				return a.commits[ids[i]] > a.commits[ids[j]]
			}
			return ids[i] < ids[j] // newer first
		})
		newest := ids[0]
		for _, c := range ids {
			newest = min(newest, c)
		}
		recency := 1 - float64(newest)/n
		fs := FileScore{Path: f, Score: a.score + recencyWeight*recency}
		seen := map[string]bool{}
		for _, c := range ids {
			s := l.Commits[c].Subject
			if s == "" || seen[s] {
				continue
			}
			seen[s] = true
			fs.Commits = append(fs.Commits, s)
			if len(fs.Commits) == 3 {
				break
			}
		}
		out = append(out, fs)
	}
	byScore(out, func(f FileScore) (float64, string) { return f.Score, f.Path })
	if k > 0 && len(out) > k {
		out = out[:k]
	}
	return out
}

func queryTerms(terms []string) []string {
	seen := map[string]bool{}
	var out []string
	for _, t := range terms {
		for _, w := range words.Split(t) {
			s := words.Stem(w)
			if len(s) < 2 || seen[s] {
				continue
			}
			seen[s] = true
			out = append(out, s)
		}
	}
	sort.Strings(out)
	return out
}

// messageTerms returns the distinct stemmed terms of a commit message, sorted: words.Terms without the
// words of the commit ritual (merge, pull request, fix, add, bump...), hashes, issue and pull request
// numbers, URLs, e-mail addresses and trailer lines (Signed-off-by, Co-authored-by, Change-Id...).
func messageTerms(subject, body string) []string {
	seen := map[string]bool{}
	var out []string
	add := func(text string) {
		for _, tok := range strings.Fields(text) {
			tok = strings.TrimFunc(tok, func(r rune) bool { return !unicode.IsLetter(r) && !unicode.IsDigit(r) && r != '#' })
			if tok == "" || noiseToken(tok) {
				continue
			}
			for _, t := range words.Terms(tok) {
				if !commitNoise[t] && !seen[t] {
					seen[t] = true
					out = append(out, t)
				}
			}
		}
	}
	if !mergeSubject(subject) {
		add(subject)
	}
	for _, line := range strings.Split(body, "\n") {
		if !trailer(line) {
			add(line)
		}
	}
	sort.Strings(out)
	return out
}

func mergeSubject(s string) bool {
	for _, p := range []string{"Merge branch ", "Merge pull request ", "Merge remote-tracking branch ", "Merge tag ", "Merge commit "} {
		if strings.HasPrefix(s, p) {
			return true
		}
	}
	return false
}

// trailer reports a "Key: value" line of the kind git and review tools append.
func trailer(line string) bool {
	key, _, ok := strings.Cut(strings.TrimSpace(line), ":")
	if !ok || key == "" || strings.ContainsAny(key, " \t") {
		return false
	}
	k := strings.ToLower(key)
	switch k {
	case "change-id", "reviewed-on", "cc", "link", "bug", "fixes", "closes", "refs", "see-also", "git-svn-id", "pr-url", "pr-link":
		return true
	}
	return strings.HasSuffix(k, "-by")
}

// noiseToken recognises whole tokens that carry no words: URLs, e-mail addresses, #123, ABC-123 issue
// keys, and hexadecimal hashes of seven characters or more.
func noiseToken(tok string) bool {
	if strings.Contains(tok, "://") || strings.Contains(tok, "@") {
		return true
	}
	if n, ok := strings.CutPrefix(tok, "#"); ok && allDigits(n) {
		return true
	}
	if key, num, ok := strings.Cut(tok, "-"); ok && key != "" && allDigits(num) && !strings.Contains(num, "-") {
		return true
	}
	return hexHash(tok)
}

func allDigits(s string) bool {
	if s == "" {
		return false
	}
	for _, r := range s {
		if r < '0' || r > '9' {
			return false
		}
	}
	return true
}

func hexHash(s string) bool {
	if len(s) < 7 {
		return false
	}
	digit := false
	for _, r := range strings.ToLower(s) {
		switch {
		case '0' <= r && r <= '9':
			digit = true
		case 'a' <= r && r <= 'f':
		default:
			return false
		}
	}
	return digit
}

// commitNoise holds the stems of the words that describe the act of changing code rather than what was
// changed, and the connectives of commit prose: they appear in messages of every project, so as terms
// they would only drown the rest.
var commitNoise = func() map[string]bool {
	base := strings.Fields(`merge pull request branch master main origin upstream rebase squash cherry pick
		fix add remove update change improve refactor rename move bump revert cleanup clean tidy tweak
		minor typo initial commit wip nit feat chore perf lint dep deps sign co author review pr todo
		allow support ensure avoid prevent handle properly correctly cannot don doesn isn won hence
		thus follow specific lint linter formatter mypy ruff flake bugbear pyupgrade isort prettier eslint
		gofmt golint clippy rustfmt docstring coverage pytest conftest bug problem thank thanks`)
	m := map[string]bool{}
	for _, w := range base {
		forms := []string{w, w + "s", w + "es"}
		if strings.HasSuffix(w, "e") {
			forms = append(forms, w+"d", w[:len(w)-1]+"ing")
		} else {
			last := w[len(w)-1:]
			forms = append(forms, w+"ed", w+"ing", w+last+"ed", w+last+"ing")
		}
		for _, f := range forms {
			m[words.Stem(f)] = true
		}
	}
	return m
}()

// FileHistory is the commits (mass commits aside) that touched path, as indexes into Commits, newest
// first: how often and how lately a file changes, and what changes with it.
func (l *Log) FileHistory(path string) []int32 {
	if l == nil || !l.Available {
		return nil
	}
	return l.index().files[path]
}

// byScore sorts files by their score, the highest first, ties by path; key gives a file's score and
// path.
func byScore[T any](files []T, key func(T) (float64, string)) {
	slices.SortFunc(files, func(a, b T) int {
		sa, pa := key(a)
		sb, pb := key(b)
		return cmp.Or(cmp.Compare(sb, sa), cmp.Compare(pa, pb))
	})
}
