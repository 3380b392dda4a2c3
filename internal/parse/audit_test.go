package parse

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"sort"
	"strconv"
	"strings"
	"testing"
	"time"
)

// TestAudit measures how the parser names definitions over real repositories: the share of functions
// named by a keyword of the language, by an ALL-CAPS (macro-like) word, or by a word inside their own
// parentheses (a parameter), and, where universal-ctags is installed, the share of the functions ctags
// finds that the parser does not. It is run by hand, over folders of checked-out repositories:
//
//	CTXMAP_AUDIT_DIR=/tmp/audit go test -run TestAudit -v ./internal/parse
//
// CTXMAP_AUDIT_FILES caps the files read per repository and language (default 120, spread evenly over
// the sorted paths); CTXMAP_AUDIT_SHOW=1 lists each misnamed and missed function.
func TestAudit(t *testing.T) {
	root := os.Getenv("CTXMAP_AUDIT_DIR")
	if root == "" {
		t.Skip("CTXMAP_AUDIT_DIR names a folder of repositories to audit")
	}
	limit := 120
	if n, err := strconv.Atoi(os.Getenv("CTXMAP_AUDIT_FILES")); err == nil && n > 0 {
		limit = n
	}
	show := os.Getenv("CTXMAP_AUDIT_SHOW") != ""
	ctags, _ := exec.LookPath("ctags")
	if ctags != "" {
		if out, err := exec.Command(ctags, "--version").Output(); err != nil || !bytes.Contains(out, []byte("Universal Ctags")) {
			ctags = ""
		}
	}
	repos, err := os.ReadDir(root)
	if err != nil {
		t.Fatal(err)
	}
	totals := map[string]*auditRow{}
	p := NewParser()
	defer p.Close()
	for _, r := range repos {
		if !r.IsDir() {
			continue
		}
		dir := filepath.Join(root, r.Name())
		for lang, paths := range auditSample(t, dir, limit) {
			row := totals[lang]
			if row == nil {
				row = &auditRow{repos: map[string]bool{}}
				totals[lang] = row
			}
			row.repos[r.Name()] = true
			var tags map[string][]ctag
			if ctags != "" && ctagsKinds[lang] != nil {
				tags = runCtags(t, ctags, dir, paths)
				row.tagged = true
			}
			for _, rel := range paths {
				auditFile(t, p, dir, rel, lang, tags[rel], row, show)
			}
		}
	}
	var langs []string
	for l := range totals {
		langs = append(langs, l)
	}
	sort.Strings(langs)
	var b strings.Builder
	b.WriteString("| language | repositories | files | functions | keyword | ALL-CAPS | in parentheses | ctags functions | missed | headers | missed |\n")
	b.WriteString("|---|---|---|---|---|---|---|---|---|---|---|\n")
	for _, l := range langs {
		r := totals[l]
		missed := "-"
		tagged := "-"
		if r.tagged {
			tagged = strconv.Itoa(r.tags)
			missed = pct(r.missed, r.tags)
		}
		heads, headMissed := "-", "-"
		if headerLine[l] != nil {
			heads, headMissed = strconv.Itoa(r.heads), pct(r.headMissed, r.heads)
		}
		fmt.Fprintf(&b, "| %s | %d | %d | %d | %s | %s | %s | %s | %s | %s | %s |\n", l, len(r.repos), r.files, r.funcs,
			pct(r.keyword, r.funcs), pct(r.caps, r.funcs), pct(r.param, r.funcs), tagged, missed, heads, headMissed)
	}
	t.Log("\n" + b.String())
}

type auditRow struct {
	repos                map[string]bool
	files, funcs         int
	keyword, caps, param int
	tags, missed         int
	heads, headMissed    int
	tagged               bool
}

func pct(n, of int) string {
	if of == 0 {
		return "-"
	}
	return fmt.Sprintf("%.1f%%", 100*float64(n)/float64(of))
}

// auditSample lists up to limit files of each tagged language under dir, spread over the sorted paths,
// without dependencies copied in, minified scripts or files over the walk's size limit.
func auditSample(t *testing.T, dir string, limit int) map[string][]string {
	all := map[string][]string{}
	err := filepath.WalkDir(dir, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() {
			switch d.Name() {
			case ".git", "node_modules", "vendor", "third_party", "3rdparty", "dist":
				return filepath.SkipDir
			}
			return nil
		}
		if !d.Type().IsRegular() || strings.HasSuffix(path, ".min.js") || !Tagged(path) {
			return nil
		}
		if info, err := d.Info(); err != nil || info.Size() > 1<<20 {
			return nil
		}
		rel, _ := filepath.Rel(dir, path)
		lang := LanguageOf(path)
		all[lang] = append(all[lang], rel)
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	for lang, paths := range all {
		sort.Strings(paths)
		if len(paths) <= limit {
			continue
		}
		picked := make([]string, 0, limit)
		for i := 0; i < limit; i++ {
			picked = append(picked, paths[i*len(paths)/limit])
		}
		all[lang] = picked
	}
	return all
}

func auditFile(t *testing.T, p *Parser, dir, rel, lang string, tags []ctag, row *auditRow, show bool) {
	src, err := os.ReadFile(filepath.Join(dir, rel))
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	f, err := p.Parse(ctx, rel, src)
	if err != nil {
		return // binary, or a grammar that did not finish: the index reads such a file as text
	}
	row.files++
	say := func(what string, d Definition) {
		if show {
			t.Logf("%s %s:%d %s %q | %s", what, rel, d.StartLine, d.Kind, d.Name, d.Signature)
		}
	}
	for _, d := range f.Definitions {
		if !callable[d.Kind] {
			continue
		}
		row.funcs++
		switch {
		case keywordName(lang, d):
			row.keyword++
			say("keyword", d)
		case macroLike.MatchString(d.Name):
			row.caps++
			say("caps", d)
		case insideParens(d):
			row.param++
			say("param", d)
		}
	}
	for _, h := range headers(lang, src) {
		row.heads++
		if !holds(f.Definitions, h.line, func(d Definition) bool { return d.Name == h.name }) {
			row.headMissed++
			if show {
				t.Logf("unseen %s:%d %q", rel, h.line, h.name)
			}
		}
	}
	for _, tag := range tags {
		row.tags++
		// ctags names TEST(Suite, Name) by its macro, the parser by its arguments
		if !holds(f.Definitions, tag.line, func(d Definition) bool {
			return d.Name == tag.name || macroLike.MatchString(tag.name) && callable[d.Kind] && d.StartLine == tag.line
		}) {
			row.missed++
			if show {
				t.Logf("missed %s:%d %q", rel, tag.line, tag.name)
			}
		}
	}
}

// holds says whether a definition that named accepts spans line.
func holds(defs []Definition, line int, named func(Definition) bool) bool {
	for _, d := range defs {
		if named(d) && d.StartLine <= line && line <= d.EndLine {
			return true
		}
	}
	return false
}

var (
	macroLike = regexp.MustCompile(`^[A-Z][A-Z0-9_]{2,}$`)
	macroCall = regexp.MustCompile(`^[A-Z][A-Z0-9_]*\(`)
)

// keywordName says whether d is named by a word its language reserves. Where a member may be named
// by a keyword (JavaScript's delete, Ruby's class), only functions count.
func keywordName(lang string, d Definition) bool {
	k := auditKeywords[lang]
	if k == nil || !k.words[d.Name] {
		return false
	}
	return !(k.members && d.Kind != "function")
}

// insideParens says whether d's name first appears inside parentheses of its own signature: a
// parameter, or a word of an argument list, taken for the name.
func insideParens(d Definition) bool {
	s := d.Signature
	if macroCall.MatchString(s) {
		return false // TEST(Suite, Name): named by its arguments on purpose
	}
	depth := 0
	for i := 0; i < len(s); i++ {
		switch c := s[i]; {
		case c == '(':
			depth++
		case c == ')':
			depth--
		case strings.HasPrefix(s[i:], d.Name) && (i == 0 || !identByte(s[i-1])) &&
			(i+len(d.Name) == len(s) || !identByte(s[i+len(d.Name)])):
			return depth > 0
		}
	}
	return false
}

func identByte(c byte) bool {
	return c == '_' || c >= '0' && c <= '9' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= 0x80
}

type keywords struct {
	words   map[string]bool
	members bool // a method may be named by one of these
}

func words(members bool, s ...string) *keywords {
	k := &keywords{words: map[string]bool{}, members: members}
	for _, w := range s {
		for _, f := range strings.Fields(w) {
			k.words[f] = true
		}
	}
	return k
}

const cKeywords = `auto break case char const continue default do double else enum extern float for goto if inline int
	long register restrict return short signed sizeof static struct switch typedef union unsigned void volatile while
	_Bool _Generic _Static_assert _Alignas _Alignof _Noreturn _Thread_local`

const ecmaKeywords = `break case catch class const continue debugger default delete do else export extends finally for
	function if import in instanceof new return super switch this throw try typeof var void while with yield let
	static await async enum implements interface package private protected public`

var auditKeywords = map[string]*keywords{
	"c": words(false, cKeywords),
	"cpp": words(false, cKeywords, `alignas alignof and asm bool catch class co_await co_return co_yield concept
		const_cast constexpr consteval constinit decltype delete dynamic_cast explicit export false friend mutable
		namespace new noexcept not nullptr private protected public reinterpret_cast requires static_assert
		static_cast template this thread_local throw true try typeid typename using virtual wchar_t`),
	"rust": words(false, `as async await break const continue crate dyn else enum extern false fn for if impl in let
		loop match mod move mut pub ref return self Self static struct super trait true type unsafe use where while
		macro_rules union`),
	"python": words(false, `False None True and as assert async await break class continue def del elif else
		except finally for from global if import in is lambda nonlocal not or pass raise return try while with yield`),
	"go": words(false, `break case chan const continue default defer else fallthrough for func go goto if import
		interface map package range return select struct switch type var`),
	"javascript": words(true, ecmaKeywords),
	"typescript": words(true, ecmaKeywords, `declare namespace module type abstract readonly keyof infer`),
	"tsx":        words(true, ecmaKeywords, `declare namespace module type abstract readonly keyof infer`),
	"java": words(false, `abstract assert boolean break byte case catch char class const continue default do double
		else enum extends final finally float for goto if implements import instanceof int interface long native
		new package private protected public return short static strictfp super switch synchronized this throw
		throws transient try void volatile while`),
	"kotlin": words(true, `as break class continue do else false for fun if in interface is null object package
		return super this throw true try typealias typeof val var when while`),
	"csharp": words(false, `abstract as base bool break byte case catch char checked class const continue decimal
		default delegate do double else enum event explicit extern false finally fixed float for foreach goto if
		implicit in int interface internal is lock long namespace new null object operator out override params
		private protected public readonly ref return sbyte sealed short sizeof stackalloc static string struct
		switch this throw true try typeof uint ulong unchecked unsafe ushort using virtual void volatile while`),
	"ruby": words(true, `BEGIN END alias and begin break case class def defined? do else elsif end ensure false
		for if in module next nil not or redo rescue retry return self super then true undef unless until when
		while yield`),
	"php": words(true, `abstract and array as break callable case catch class clone const continue declare default
		do echo else elseif empty extends final finally fn for foreach function global goto if implements include
		instanceof insteadof interface isset list match namespace new or print private protected public readonly
		require return static switch throw trait try unset use var while xor yield`),
	"scala": words(true, `abstract case catch class def do else extends false final finally for forSome if
		implicit import lazy match new null object override package private protected return sealed super this
		throw trait try true type val var while with yield`),
	"swift": words(true, `associatedtype class enum extension fileprivate func import inout internal let open
		operator private protocol public rethrows static struct typealias var break case continue default defer do
		else fallthrough for guard if in repeat return switch where while as catch false is nil super self Self
		throw throws true try`),
	"bash": words(false, `if then else elif fi case esac for select while until do done in function time`),
}

// ctagsKinds are the kinds of tags, as universal-ctags names them for each language, that are
// functions; prototypes and declarations are left out, as a header's are by ctags' defaults.
var ctagsKinds = map[string]map[string]bool{
	"c": {"function": true}, "cpp": {"function": true},
	"rust": {"function": true, "method": true}, "python": {"function": true, "member": true},
	"go": {"func": true}, "javascript": {"function": true, "method": true, "getter": true, "setter": true, "generator": true},
	"typescript": {"function": true, "method": true}, "java": {"method": true}, "kotlin": {"method": true},
	"csharp": {"method": true}, "ruby": {"method": true, "singletonMethod": true}, "php": {"function": true}, "bash": {"function": true},
}

// namedTag is a tag's name as code writes it: not an operator (ctags writes "operator =") nor a
// lambda ctags names itself ("<lambda>", "__anon1a2b").
var namedTag = regexp.MustCompile(`^~?[A-Za-z_$][A-Za-z0-9_$]*$`)

// headerLine is a function's header as a line of source writes it, for languages whose headers a
// regular expression reads plainly; the last group is the name. It finds what ctags does not look
// into: Rust's functions inside a macro's block.
var headerLine = map[string]*regexp.Regexp{
	"rust":   regexp.MustCompile(`^\s*(pub(\([^)]*\))?\s+)?(const\s+)?(async\s+)?(unsafe\s+)?(extern\s+"[^"]*"\s+)?fn\s+([A-Za-z_][A-Za-z0-9_]*)`),
	"go":     regexp.MustCompile(`^func\s+(\([^)]*\)\s*)?([A-Za-z_][A-Za-z0-9_]*)`),
	"python": regexp.MustCompile(`^\s*(async\s+)?def\s+([A-Za-z_][A-Za-z0-9_]*)`),
}

// headers lists the function headers headerLine finds in src, outside macro_rules! definitions.
func headers(lang string, src []byte) []ctag {
	re := headerLine[lang]
	if re == nil {
		return nil
	}
	var out []ctag
	for i, line := range SplitLines(src) {
		if m := re.FindSubmatch(line); m != nil && !bytes.Contains(line, []byte("$")) {
			out = append(out, ctag{string(m[len(m)-1]), i + 1})
		}
	}
	return out
}

type ctag struct {
	name string
	line int
}

// runCtags tags paths (relative to dir) with universal-ctags and keeps the function-like tags, by path.
func runCtags(t *testing.T, ctags, dir string, paths []string) map[string][]ctag {
	cmd := exec.Command(ctags, "-f", "-", "--output-format=json", "--fields=+nK", "-L", "-")
	cmd.Dir = dir
	cmd.Stdin = strings.NewReader(strings.Join(paths, "\n") + "\n")
	out, err := cmd.Output()
	if err != nil {
		t.Logf("ctags in %s: %v", dir, err)
		return nil
	}
	byPath := map[string][]ctag{}
	sc := bufio.NewScanner(bytes.NewReader(out))
	sc.Buffer(make([]byte, 1<<20), 1<<20)
	for sc.Scan() {
		var tag struct {
			Name, Path, Kind string
			Line             int
		}
		if json.Unmarshal(sc.Bytes(), &tag) != nil || tag.Line == 0 {
			continue
		}
		if kinds := ctagsKinds[LanguageOf(tag.Path)]; kinds != nil && kinds[tag.Kind] && namedTag.MatchString(tag.Name) &&
			!strings.HasPrefix(tag.Name, "__anon") && !strings.HasPrefix(tag.Name, "AnonymousFunction") {
			byPath[tag.Path] = append(byPath[tag.Path], ctag{tag.Name, tag.Line})
		}
	}
	return byPath
}
