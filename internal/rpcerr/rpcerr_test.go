package rpcerr

import (
	"encoding/json"
	"testing"
)

func TestResponse(t *testing.T) {
	for _, c := range []struct{ id, want string }{
		{`7`, `{"jsonrpc":"2.0","id":7,"error":{"code":-32600,"message":"bad \"x\""}}`},
		{`"a"`, `{"jsonrpc":"2.0","id":"a","error":{"code":-32600,"message":"bad \"x\""}}`},
		{`{"x":1}`, `{"jsonrpc":"2.0","id":null,"error":{"code":-32600,"message":"bad \"x\""}}`},
		{`[1]`, `{"jsonrpc":"2.0","id":null,"error":{"code":-32600,"message":"bad \"x\""}}`},
		{`nul`, `{"jsonrpc":"2.0","id":null,"error":{"code":-32600,"message":"bad \"x\""}}`},
		{``, `{"jsonrpc":"2.0","id":null,"error":{"code":-32600,"message":"bad \"x\""}}`},
	} {
		got := string(Response(json.RawMessage(c.id), -32600, `bad "x"`))
		if got != c.want {
			t.Errorf("id %q: got %s, want %s", c.id, got, c.want)
		}
	}
}
