package query

import (
	"reflect"
	"testing"
)

func TestFrames(t *testing.T) {
	cases := []struct {
		name, text string
		want       []Frame
	}{
		{
			name: "python, innermost printed last",
			text: "Crash when saving\n\n```\nTraceback (most recent call last):\n" +
				"  File \"/home/u/proj/app/cli.py\", line 41, in main\n    store.save(doc)\n" +
				"  File \"/home/u/proj/app/store.py\", line 88, in save\n    self._write(path, data)\n" +
				"  File \"app/store.py\", line 102, in _write\n    raise ValueError(\"bad path\")\n" +
				"ValueError: bad path\n```\n",
			want: []Frame{
				{Path: "app/store.py", Line: 102, Function: "_write", Language: "python", Index: 0},
				{Path: "/home/u/proj/app/store.py", Line: 88, Function: "save", Language: "python", Index: 1},
				{Path: "/home/u/proj/app/cli.py", Line: 41, Function: "main", Language: "python", Index: 2},
			},
		},
		{
			name: "python, chained tracebacks in order, each innermost first",
			text: "Traceback (most recent call last):\n  File \"a.py\", line 1, in f\n    g()\n  File \"b.py\", line 2, in g\n    {}['k']\nKeyError: 'k'\n\n" +
				"During handling of the above exception, another exception occurred:\n\n" +
				"Traceback (most recent call last):\n  File \"c.py\", line 3, in h\n    f()\n  File \"d.py\", line 4, in i\n    raise RuntimeError\nRuntimeError\n",
			want: []Frame{
				{Path: "b.py", Line: 2, Function: "g", Language: "python", Index: 0},
				{Path: "a.py", Line: 1, Function: "f", Language: "python", Index: 1},
				{Path: "d.py", Line: 4, Function: "i", Language: "python", Index: 2},
				{Path: "c.py", Line: 3, Function: "h", Language: "python", Index: 3},
			},
		},
		{
			name: "pytest short traceback",
			text: "tests/test_cache.py:12: in test_evict\n    cache.evict(key)\nsrc/cache/lru.py:57: in evict\n    del self._data[key]\nE   KeyError: 'a'\n",
			want: []Frame{
				{Path: "src/cache/lru.py", Line: 57, Function: "evict", Language: "python", Index: 0},
				{Path: "tests/test_cache.py", Line: 12, Function: "test_evict", Language: "python", Index: 1},
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
			want: []Frame{
				{Path: "/home/dev/shop/cart/cart.go", Line: 42, Function: "github.com/acme/shop/cart.(*Cart).Total", Language: "go", Index: 0},
				{Path: "/home/dev/shop/main.go", Line: 17, Function: "main.main", Language: "go", Index: 1},
			},
		},
		{
			name: "go goroutine dump with created by",
			text: "goroutine 7 [chan receive]:\nexample.com/q/worker.(*Pool).run(0xc000010000)\n\t/src/q/worker/pool.go:88 +0x5c\n" +
				"created by example.com/q/worker.New in goroutine 1\n\t/src/q/worker/pool.go:31 +0x9a\n",
			want: []Frame{
				{Path: "/src/q/worker/pool.go", Line: 88, Function: "example.com/q/worker.(*Pool).run", Language: "go", Index: 0},
				{Path: "/src/q/worker/pool.go", Line: 31, Function: "example.com/q/worker.New", Language: "go", Index: 1},
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
			want: []Frame{
				{Path: "com/acme/config/Loader.java", Line: 90, Function: "com.acme.config.Loader$Reader.open", Language: "java", Index: 0},
				{Path: "com/acme/config/Loader.java", Line: 57, Function: "com.acme.config.Loader.load", Language: "java", Index: 1},
				{Path: "com/acme/App.java", Line: 12, Function: "com.acme.App.main", Language: "java", Index: 2},
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
			want: []Frame{
				{Path: "/srv/api/src/users/format.js", Line: 14, Function: "formatUser", Language: "javascript", Index: 0},
				{Path: "/srv/api/src/router.mjs", Line: 88, Function: "Router.handle", Language: "javascript", Index: 1},
				{Path: "/srv/api/src/server.js", Line: 30, Language: "javascript", Index: 2},
			},
		},
		{
			name: "typescript",
			text: "Error: unknown column\n    at QueryBuilder.where (src/db/query.ts:120:11)\n    at src/index.ts:3:1\n",
			want: []Frame{
				{Path: "src/db/query.ts", Line: 120, Function: "QueryBuilder.where", Language: "javascript", Index: 0},
				{Path: "src/index.ts", Line: 3, Language: "javascript", Index: 1},
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
			want: []Frame{
				{Path: "src/parser/lexer.rs", Line: 212, Language: "rust", Index: 0},
				{Path: "./src/parser/lexer.rs", Line: 212, Function: "mylang::parser::lexer::Lexer::next_token", Language: "rust", Index: 1},
				{Path: "./src/main.rs", Line: 9, Function: "mylang::main", Language: "rust", Index: 2},
			},
		},
		{
			name: "rust, old panic format",
			text: "thread 'worker-2' panicked at 'called `Option::unwrap()` on a `None` value', src/pool.rs:77:30\n",
			want: []Frame{{Path: "src/pool.rs", Line: 77, Language: "rust", Index: 0}},
		},
		{
			name: "address sanitizer",
			text: "==1234==ERROR: AddressSanitizer: heap-buffer-overflow on address 0x602000000011\n" +
				"    #0 0x4f2b1c in utf8_decode src/utf8.c:88:14\n    #1 0x4f3a02 in parse_string src/parser.c:301\n" +
				"    #2 0x7f31f723984f  (/usr/lib/libc.so.6+0x2384f)\n",
			want: []Frame{
				{Path: "src/utf8.c", Line: 88, Function: "utf8_decode", Language: "c", Index: 0},
				{Path: "src/parser.c", Line: 301, Function: "parse_string", Language: "c", Index: 1},
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
			got := analyze(c.text, nil).Frames
			if !reflect.DeepEqual(got, c.want) {
				t.Errorf("frames:\n got %+v\nwant %+v", got, c.want)
			}
		})
	}
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
