package query

import (
	"encoding/json"
	"fmt"
	"os"
	"testing"

	"github.com/ctxmap/ctxmap/index/lexicon"
)

func TestDemo(t *testing.T) {
	text, _ := os.ReadFile(os.Getenv("QTEXT"))
	a := Analyze(string(text), lexicon.Builtin())
	a.Text = ""
	if len(a.Terms) > 30 { a.Terms = a.Terms[:30] }
	b, _ := json.MarshalIndent(a, "", " ")
	fmt.Println(string(b))
}
