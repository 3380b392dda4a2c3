// Package rpcerr encodes the JSON-RPC 2.0 error response both protocol servers send for a message they
// cannot take (malformed, too long, not a request), where the connection's own bookkeeping has no id.
package rpcerr

import "encoding/json"

// ValidID reports whether raw is an id a response may echo: a string or a number.
func ValidID(raw json.RawMessage) bool {
	var v any
	if json.Unmarshal(raw, &v) != nil {
		return false
	}
	switch v.(type) {
	case string, float64:
		return true
	}
	return false
}

// Response encodes an error response to id; an id that is not valid is answered as null, as JSON-RPC
// asks when the request's id could not be read.
func Response(id json.RawMessage, code int64, message string) []byte {
	if !ValidID(id) {
		id = json.RawMessage("null")
	}
	type errorBody struct {
		Code    int64  `json:"code"`
		Message string `json:"message"`
	}
	body, err := json.Marshal(struct {
		Version string          `json:"jsonrpc"`
		ID      json.RawMessage `json:"id"`
		Error   errorBody       `json:"error"`
	}{"2.0", id, errorBody{code, message}})
	if err != nil { // only a string and numbers are encoded: this cannot happen
		panic(err)
	}
	return body
}
