package walk

import (
	"bytes"
	"io"
	"os"
	"path"
	"regexp"
	"strings"
	"unicode/utf8"
)

// Reasons Classify gives.
const (
	ReasonBinary    = "binary"
	ReasonMinified  = "minified"
	ReasonGenerated = "generated"
	ReasonSecret    = "secret" // keys, credentials, .env: never read into the index, never in a pack
)

const (
	sniffLen        = 8 << 10 // bytes looked at for binary content and headers
	headerLines     = 40      // lines looked at for a generated-code header
	markerLines     = 10      // lines looked at for @generated
	minifiedLineLen = 300     // average bytes per line above which JS/CSS/JSON is minified
	minifiedMinSize = 1 << 10 // smaller files are cheap enough to keep whatever their shape
)

// Files written by package managers.
var lockFiles = map[string]bool{
	"package-lock.json": true, "npm-shrinkwrap.json": true, "yarn.lock": true, "pnpm-lock.yaml": true,
	"bun.lockb": true, "Cargo.lock": true, "go.sum": true, "Gemfile.lock": true, "composer.lock": true,
	"poetry.lock": true, "Pipfile.lock": true, "uv.lock": true, "pubspec.lock": true, "mix.lock": true,
	"flake.lock": true, "packages.lock.json": true, "Podfile.lock": true,
}

var generatedSuffixes = []string{".pb.go", ".pb.gw.go", "_pb2.py", "_pb2_grpc.py", "_pb2.pyi", ".pb.cc", ".pb.h"}

var minifiedSuffixes = []string{".min.js", ".min.mjs", ".min.cjs", ".min.css"}

// Extensions whose long lines mean a machine wrote them.
var minifiableExts = map[string]bool{".js": true, ".mjs": true, ".cjs": true, ".css": true, ".json": true, ".map": true}

// Go's generated-code convention, written in any language's comment syntax.
var generatedHeader = regexp.MustCompile(`^(//|#|--|;|/\*|\*|<!--)\s*Code generated .* DO NOT EDIT\.?`)

// Classify says why a file's content should not be indexed: "binary", "minified" or "generated", or ""
// when it should. rel is the slash path, used for names such as *.min.js and lock files.
func Classify(rel string, content []byte) string {
	name := path.Base(rel)
	head := content
	if len(head) > sniffLen {
		head = head[:sniffLen]
	}
	if SecretName(name) || bytes.Contains(head, privateKey) {
		return ReasonSecret
	}
	if isBinary(head) {
		return ReasonBinary
	}
	if lockFiles[name] || hasSuffix(name, generatedSuffixes) || strings.Contains(name, ".generated.") {
		return ReasonGenerated
	}
	if hasSuffix(name, minifiedSuffixes) {
		return ReasonMinified
	}
	if hasGeneratedHeader(head) {
		return ReasonGenerated
	}
	if minifiableExts[strings.ToLower(path.Ext(name))] && isMinified(content) {
		return ReasonMinified
	}
	return ""
}

// secretFiles and secretExts name the files that hold credentials by convention.
var (
	secretFiles = map[string]bool{".env": true, ".netrc": true, ".npmrc": true, ".pypirc": true, ".pgpass": true,
		"id_rsa": true, "id_dsa": true, "id_ecdsa": true, "id_ed25519": true, "credentials.json": true,
		"secrets.yaml": true, "secrets.yml": true, "secrets.json": true, ".htpasswd": true}
	secretExts = map[string]bool{".pem": true, ".key": true, ".p12": true, ".pfx": true, ".jks": true,
		".keystore": true, ".tfvars": true, ".kdbx": true}
	envSamples = map[string]bool{"example": true, "sample": true, "template": true, "dist": true, "defaults": true}
)

// privateKey ends a PEM private key's first line (written in two pieces so this file is not one).
var privateKey = []byte("PRIVATE " + "KEY-----")

// SecretName reports whether a file name is one that holds credentials by convention.
func SecretName(name string) bool {
	low := strings.ToLower(name)
	if secretFiles[low] || secretExts[path.Ext(low)] {
		return true
	}
	if rest, ok := strings.CutPrefix(low, ".env."); ok {
		return !envSamples[rest] // .env.local, .env.production; not .env.example
	}
	return strings.HasPrefix(low, "credentials") && strings.HasSuffix(low, ".json")
}

// BinaryFile reports whether the file at abs holds binary content, by its first bytes as Classify
// reads them; a file that cannot be read is not called binary.
func BinaryFile(abs string) bool {
	f, err := os.Open(abs)
	if err != nil {
		return false
	}
	defer f.Close()
	head := make([]byte, sniffLen)
	n, _ := io.ReadFull(f, head)
	return isBinary(head[:n])
}

// isBinary: a NUL byte, or more than 30% of bytes that are neither text controls nor valid UTF-8.
func isBinary(head []byte) bool {
	if len(head) == 0 {
		return false
	}
	if bytes.IndexByte(head, 0) >= 0 {
		return true
	}
	bad := 0
	for i := 0; i < len(head); {
		c := head[i]
		if c < utf8.RuneSelf {
			if c < 0x20 && c != '\t' && c != '\n' && c != '\r' && c != '\f' && c != '\v' && c != 0x1b {
				bad++
			}
			i++
			continue
		}
		r, size := utf8.DecodeRune(head[i:])
		if r == utf8.RuneError && size == 1 && len(head)-i >= utf8.UTFMax {
			bad++ // an invalid byte, not a character cut at the end of the sample
		}
		i += size
	}
	return bad*10 > len(head)*3
}

// hasGeneratedHeader looks for "Code generated ... DO NOT EDIT." in a comment among the first lines, or
// "@generated" in a comment among the very first.
func hasGeneratedHeader(head []byte) bool {
	lines := bytes.SplitN(head, []byte("\n"), headerLines+1)
	if len(lines) > headerLines {
		lines = lines[:headerLines]
	}
	for i, raw := range lines {
		line := bytes.TrimSpace(raw)
		if generatedHeader.Match(line) {
			return true
		}
		if i < markerLines && isComment(line) && bytes.Contains(line, []byte("@generated")) {
			return true
		}
	}
	return false
}

func isComment(line []byte) bool {
	for _, p := range []string{"//", "#", "--", ";", "/*", "*", "<!--", "\"\"\"", "'''"} {
		if bytes.HasPrefix(line, []byte(p)) {
			return true
		}
	}
	return false
}

func isMinified(content []byte) bool {
	if len(content) < minifiedMinSize {
		return false
	}
	lines := bytes.Count(content, []byte("\n")) + 1
	return len(content)/lines > minifiedLineLen
}

func hasSuffix(name string, suffixes []string) bool {
	for _, s := range suffixes {
		if strings.HasSuffix(name, s) {
			return true
		}
	}
	return false
}
