package pack

import (
	"fmt"
	"math/rand/v2"
	"strings"
)

// Random but realistic candidates: Go-like definitions with docs, bodies and members, over a few dozen
// files so that line ranges overlap, in every kind and bucket, some with bodies capped by the ranker.

var (
	genNouns = []string{"rule", "index", "profile", "quality", "issue", "repo", "branch", "token", "budget",
		"entity", "snapshot", "record", "chunk", "query", "cache", "watcher", "lexicon", "frame", "trace", "user"}
	genVerbs  = []string{"load", "build", "parse", "merge", "rank", "find", "apply", "check", "split", "count"}
	genTypes  = []string{"string", "int", "error", "[]string", "map[string]int", "*Record", "bool", "float64"}
	genKinds  = []string{"definition", "definition", "definition", "snippet", "snippet", "test", "caller", "import", "file"}
	genLangs  = []string{"go", "go", "go", "python", "typescript", ""}
	genWhy    = []string{"exact identifier `%s`", "entity %s", "BM25 #%d", "stack frame %d", "calls `%s`", "vector #%d", "file #%d"}
	genSpaces = []string{"\t", "\t\t", "    ", "        ", "\t\t\t"}
)

func genName(r *rand.Rand, parts int) string {
	var b strings.Builder
	for i := 0; i < parts; i++ {
		n := genNouns[r.IntN(len(genNouns))]
		b.WriteString(strings.ToUpper(n[:1]) + n[1:])
	}
	return b.String()
}

func genLine(r *rand.Rand) string {
	ind := genSpaces[r.IntN(len(genSpaces))]
	a, b := strings.ToLower(genName(r, 1)), genName(r, 2)
	switch r.IntN(12) {
	case 0:
		return ind + "if " + a + " == nil {"
	case 1:
		return ind + "return nil, fmt.Errorf(\"" + a + " %s: %w\", " + a + ", err)"
	case 2:
		return ind + "for i, x := range " + a + "." + b + " {"
	case 3:
		return ind + "}"
	case 4:
		return ""
	case 5:
		return ind + "// " + genVerbs[r.IntN(len(genVerbs))] + " the " + a + " before the " + strings.ToLower(b) + " is read"
	case 6:
		return ind + a + " := " + b + "(ctx, " + fmt.Sprint(r.IntN(1000)) + ")"
	case 7:
		return ind + "log.Printf(\"" + a + "=%v Ünïcode ✓ 日本\", " + a + ")"
	case 8:
		return ind + "s += strings.Repeat(\"`\", " + fmt.Sprint(r.IntN(5)) + ") // ]]> stays literal"
	case 9:
		return "/* " + a + " */"
	case 10:
		return ind + "x := " + a + "[" + fmt.Sprint(r.IntN(9)) + "] / 2 // " + b
	}
	return ind + a + "." + b + "(" + strings.ToLower(genName(r, 1)) + ")"
}

func genCandidate(r *rand.Rand, paths []string) Candidate {
	kind := genKinds[r.IntN(len(genKinds))]
	path := paths[r.IntN(len(paths))]
	typ := genName(r, 1+r.IntN(2))
	fn := genVerbs[r.IntN(len(genVerbs))]
	name := strings.ToUpper(fn[:1]) + fn[1:] + genName(r, 1)
	sig := fmt.Sprintf("func (r *%s) %s(%s %s) (%s, error)", typ, name, strings.ToLower(genName(r, 1)),
		genTypes[r.IntN(len(genTypes))], genTypes[r.IntN(len(genTypes))])
	doc := fmt.Sprintf("// %s %ss the %s of a %s.", name, fn, genNouns[r.IntN(len(genNouns))], genNouns[r.IntN(len(genNouns))])
	c := Candidate{
		Kind:     kind,
		Path:     path,
		Symbol:   typ + "." + name,
		Language: genLangs[r.IntN(len(genLangs))],
		Score:    r.Float64(),
	}
	if r.IntN(4) > 0 {
		c.Bucket = bucketOfKind[kind]
	}
	if kind != "definition" && kind != "caller" && kind != "test" {
		c.Symbol = ""
	}
	n := 1 + r.IntN(60)
	if r.IntN(8) == 0 {
		n += r.IntN(400) // now and then a huge body
	}
	c.StartLine = 1 + r.IntN(400)
	c.EndLine = c.StartLine + n - 1
	var body []string
	switch {
	case kind == "import":
		c.Compact = "import (\n\t\"fmt\"\n\t\"strings\"\n\t\"github.com/ctxmap/" + strings.ToLower(typ) + "\"\n)"
	case r.IntN(5) == 0: // a type with members
		sig = "type " + typ + " struct {"
		c.Symbol = typ
		c.Compact = doc + "\n" + sig
		var members []string
		for i := 0; i < 2+r.IntN(10); i++ {
			members = append(members, "    "+genName(r, 2)+" "+genTypes[r.IntN(len(genTypes))])
		}
		c.Standard = c.Compact + "\n" + strings.Join(members, "\n")
		body = append(body, doc, sig)
	default:
		c.Compact = doc + "\n" + sig
		body = append(body, doc, sig+" {")
	}
	if kind != "import" {
		for len(body) < n-1 {
			body = append(body, genLine(r))
		}
		body = append(body, "}")
		if len(body) > n {
			c.EndLine = c.StartLine + len(body) - 1
		}
		if r.IntN(10) == 0 && len(body) > 20 {
			body = body[:len(body)/2] // the ranker capped the body
		}
		c.Full = strings.Join(body, "\n")
	}
	whys := 1 + r.IntN(3)
	for i := 0; i < whys; i++ {
		w := genWhy[r.IntN(len(genWhy))]
		if strings.Contains(w, "%s") {
			c.Why = append(c.Why, fmt.Sprintf(w, name))
		} else {
			c.Why = append(c.Why, fmt.Sprintf(w, 1+r.IntN(20)))
		}
	}
	return c
}

func genCandidates(seed uint64, n int) []Candidate {
	r := rand.New(rand.NewPCG(seed, 0x5eed))
	var paths []string
	for i := 0; i < 12+r.IntN(20); i++ {
		dir := genNouns[r.IntN(len(genNouns))]
		paths = append(paths, fmt.Sprintf("internal/%s/%s.go", dir, strings.ToLower(genName(r, 1+r.IntN(2)))))
	}
	out := make([]Candidate, n)
	for i := range out {
		out[i] = genCandidate(r, paths)
		out[i].Score = 1 / float64(1+i) // rank order
	}
	return out
}

func genEntities(seed uint64) []Entity {
	r := rand.New(rand.NewPCG(seed, 0xe))
	var out []Entity
	for i := 0; i < r.IntN(7); i++ {
		e := Entity{Name: strings.ToUpper(genNouns[r.IntN(len(genNouns))]), Importance: r.Float64()}
		for j := 0; j < r.IntN(4); j++ {
			e.Files = append(e.Files, "internal/"+genNouns[r.IntN(len(genNouns))]+"/"+genNouns[r.IntN(len(genNouns))]+".go")
		}
		for j := 0; j < r.IntN(4); j++ {
			e.Related = append(e.Related, strings.ToUpper(genNouns[r.IntN(len(genNouns))]))
		}
		out = append(out, e)
	}
	return out
}
