package session

import (
	"debug/elf"
	"encoding/binary"
	"os"
	"runtime/debug"
	"strings"
)

// Build names this binary's build: its Go build ID (which changes with any change to the code that
// went into it), else the module's version and commit. A background process answers only commands
// of its own build; a command of another replaces it.
var Build = buildOf()

func buildOf() string {
	exe, _ := os.Executable()
	return BuildOf(exe)
}

// BuildOf names the build of the binary exe: its Go build ID; else, or for "", this binary's version
// and commit.
func BuildOf(exe string) string {
	if id := goBuildID(exe); exe != "" && id != "" {
		return "build " + id
	}
	info, ok := debug.ReadBuildInfo()
	if !ok {
		return "unknown build"
	}
	b := info.Main.Version
	for _, kv := range info.Settings {
		switch {
		case kv.Key == "vcs.revision":
			b += " commit " + kv.Value
		case kv.Key == "vcs.modified" && kv.Value == "true":
			b += " modified"
		}
	}
	return b
}

// goBuildID is the Go build ID in the note of an ELF binary; "" when there is none.
func goBuildID(exe string) string {
	f, err := elf.Open(exe)
	if err != nil {
		return ""
	}
	defer f.Close()
	sec := f.Section(".note.go.buildid")
	if sec == nil {
		return ""
	}
	note, err := sec.Data()
	// the note: name size, description size, type, the name "Go\x00\x00", the description
	if err != nil || len(note) < 16 {
		return ""
	}
	size := int(binary.LittleEndian.Uint32(note[4:8]))
	if 16+size > len(note) {
		return ""
	}
	return strings.TrimSpace(string(note[16 : 16+size]))
}
