package query

import (
	"reflect"
	"strconv"
	"strings"
	"testing"
)

func TestFrames(t *testing.T) {
	cases := []struct {
		name, text, lang string
		want             []string // "path:line function", the function when the trace names one
	}{
		{
			name: "python, innermost printed last",
			text: "Crash when saving\n\n```\nTraceback (most recent call last):\n" +
				"  File \"/home/u/proj/app/cli.py\", line 41, in main\n    store.save(doc)\n" +
				"  File \"/home/u/proj/app/store.py\", line 88, in save\n    self._write(path, data)\n" +
				"  File \"app/store.py\", line 102, in _write\n    raise ValueError(\"bad path\")\n" +
				"ValueError: bad path\n```\n",
			lang: "python",
			want: []string{
				"app/store.py:102 _write",
				"/home/u/proj/app/store.py:88 save",
				"/home/u/proj/app/cli.py:41 main",
			},
		},
		{
			name: "python, chained tracebacks in order, each innermost first",
			text: "Traceback (most recent call last):\n  File \"a.py\", line 1, in f\n    g()\n  File \"b.py\", line 2, in g\n    {}['k']\nKeyError: 'k'\n\n" +
				"During handling of the above exception, another exception occurred:\n\n" +
				"Traceback (most recent call last):\n  File \"c.py\", line 3, in h\n    f()\n  File \"d.py\", line 4, in i\n    raise RuntimeError\nRuntimeError\n",
			lang: "python",
			want: []string{
				"b.py:2 g",
				"a.py:1 f",
				"d.py:4 i",
				"c.py:3 h",
			},
		},
		{
			name: "pytest short traceback",
			text: "tests/test_cache.py:12: in test_evict\n    cache.evict(key)\nsrc/cache/lru.py:57: in evict\n    del self._data[key]\nE   KeyError: 'a'\n",
			lang: "python",
			want: []string{
				"src/cache/lru.py:57 evict",
				"tests/test_cache.py:12 test_evict",
			},
		},
		{
			name: "go panic, runtime frames dropped",
			text: "panic: runtime error: invalid memory address or nil pointer dereference\n" +
				"[signal SIGSEGV: segmentation violation code=0x1 addr=0x0 pc=0x4b7a2e]\n\n" +
				"goroutine 1 [running]:\n" +
				"panic({0x4d2e60?, 0x5a1c10?})\n\t/usr/local/go/src/runtime/panic.go:770 +0x132\n" +
				"github.com/acme/shop/cart.(*Cart).Total(0x0)\n\t/home/dev/shop/cart/cart.go:42 +0x1e\n" +
				"main.main()\n\t/home/dev/shop/main.go:17 +0x25\nexit status 2\n",
			lang: "go",
			want: []string{
				"/home/dev/shop/cart/cart.go:42 github.com/acme/shop/cart.(*Cart).Total",
				"/home/dev/shop/main.go:17 main.main",
			},
		},
		{
			name: "go goroutine dump with created by",
			text: "goroutine 7 [chan receive]:\nexample.com/q/worker.(*Pool).run(0xc000010000)\n\t/src/q/worker/pool.go:88 +0x5c\n" +
				"created by example.com/q/worker.New in goroutine 1\n\t/src/q/worker/pool.go:31 +0x9a\n",
			lang: "go",
			want: []string{
				"/src/q/worker/pool.go:88 example.com/q/worker.(*Pool).run",
				"/src/q/worker/pool.go:31 example.com/q/worker.New",
			},
		},
		{
			name: "java with Caused by: root cause first, package folders",
			text: "Exception in thread \"main\" java.lang.IllegalStateException: load failed\n" +
				"\tat com.acme.config.Loader.load(Loader.java:57)\n" +
				"\tat com.acme.App.main(App.java:12)\n" +
				"Caused by: java.io.FileNotFoundException: app.yml (No such file or directory)\n" +
				"\tat java.base/java.io.FileInputStream.open0(Native Method)\n" +
				"\tat com.acme.config.Loader$Reader.open(Loader.java:90)\n" +
				"\t... 2 more\n",
			lang: "java",
			want: []string{
				"com/acme/config/Loader.java:90 com.acme.config.Loader$Reader.open",
				"com/acme/config/Loader.java:57 com.acme.config.Loader.load",
				"com/acme/App.java:12 com.acme.App.main",
			},
		},
		{
			name: "node stack, internals dropped",
			text: "TypeError: Cannot read properties of undefined (reading 'id')\n" +
				"    at formatUser (/srv/api/src/users/format.js:14:23)\n" +
				"    at Array.map (<anonymous>)\n" +
				"    at async Router.handle (file:///srv/api/src/router.mjs:88:5)\n" +
				"    at /srv/api/src/server.js:30:7\n" +
				"    at Module._compile (node:internal/modules/cjs/loader:1256:14)\n",
			lang: "javascript",
			want: []string{
				"/srv/api/src/users/format.js:14 formatUser",
				"/srv/api/src/router.mjs:88 Router.handle",
				"/srv/api/src/server.js:30",
			},
		},
		{
			name: "typescript",
			text: "Error: unknown column\n    at QueryBuilder.where (src/db/query.ts:120:11)\n    at src/index.ts:3:1\n",
			lang: "javascript",
			want: []string{
				"src/db/query.ts:120 QueryBuilder.where",
				"src/index.ts:3",
			},
		},
		{
			name: "rust panic and backtrace",
			text: "thread 'main' panicked at src/parser/lexer.rs:212:17:\nindex out of bounds: the len is 3 but the index is 3\n" +
				"stack backtrace:\n" +
				"   0: rust_begin_unwind\n             at /rustc/90b35a6239c3d8bdabc530a6a0816f7ff89a0aaf/library/std/src/panicking.rs:645:5\n" +
				"   1: core::panicking::panic_bounds_check\n             at /rustc/90b35a6239c3d8bdabc530a6a0816f7ff89a0aaf/library/core/src/panicking.rs:208:5\n" +
				"   2: mylang::parser::lexer::Lexer::next_token\n             at ./src/parser/lexer.rs:212:17\n" +
				"   3: mylang::main\n             at ./src/main.rs:9:5\n",
			lang: "rust",
			want: []string{
				"src/parser/lexer.rs:212",
				"./src/parser/lexer.rs:212 mylang::parser::lexer::Lexer::next_token",
				"./src/main.rs:9 mylang::main",
			},
		},
		{
			name: "rust, old panic format",
			text: "thread 'worker-2' panicked at 'called `Option::unwrap()` on a `None` value', src/pool.rs:77:30\n",
			lang: "rust",
			want: []string{"src/pool.rs:77"},
		},
		{
			name: "address sanitizer",
			text: "==1234==ERROR: AddressSanitizer: heap-buffer-overflow on address 0x602000000011\n" +
				"    #0 0x4f2b1c in utf8_decode src/utf8.c:88:14\n    #1 0x4f3a02 in parse_string src/parser.c:301\n" +
				"    #2 0x7f31f723984f  (/usr/lib/libc.so.6+0x2384f)\n",
			lang: "c",
			want: []string{
				"src/utf8.c:88 utf8_decode",
				"src/parser.c:301 parse_string",
			},
		},
		{
			name: "prose mentions no frames",
			text: "The parser at src/parser.c:301 looks wrong; at least File \"x\" is odd.\n1: first point\n",
			want: nil,
		},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			got, want := analyze(c.text, nil).Frames, frames(c.lang, c.want)
			if !reflect.DeepEqual(got, want) {
				t.Errorf("frames:\n got %+v\nwant %+v", got, want)
			}
		})
	}
}

// frames are the frames of a trace in language, numbered in order, from "path:line function" each.
func frames(language string, want []string) []Frame {
	var out []Frame
	for i, w := range want {
		at, function, _ := strings.Cut(w, " ")
		colon := strings.LastIndexByte(at, ':')
		line, _ := strconv.Atoi(at[colon+1:])
		out = append(out, Frame{Path: at[:colon], Line: line, Function: function, Language: language, Index: i})
	}
	return out
}

func TestTraceMeansBugFix(t *testing.T) {
	text := "Exporting a report\n\nTraceback (most recent call last):\n  File \"report/export.py\", line 9, in export\n    rows = load()\nOSError: disk full\n"
	a := analyze(text, nil)
	if a.Intent.Name != BugFix || a.Intent.Confidence < traceConfidence {
		t.Errorf("intent %+v, want bug_fix >= %v", a.Intent, traceConfidence)
	}
	for _, term := range a.Terms {
		if term.Word == "traceback" || term.Word == "recent" {
			t.Errorf("trace header gave term %q", term.Word)
		}
	}
}
