package session

import (
	"encoding/json"
	"io"

	"go.lsp.dev/jsonrpc2"
)

// The socket speaks JSON-RPC 2.0, one message a line (serve.go answers, ask.go asks). A connection carries one call, whose method is
// an operation's name and whose params are callParams, and its response; while the answer is made the
// process sends a "progress" notification each progressEvery. What it refuses before reading a call
// (too long, too many connections, not a call) gets a "refused" notification, and the connection
// closes.

// protocolVersion changes whenever a call or an answer changes: a process of another version is not
// asked. 3: a context request is the user's, as typed (index.Request). 4: a request names its build,
// which a background process of another refuses. 5: JSON-RPC, an operation a method.
const protocolVersion = 5

// callParams are a call's params: the operation's argument, and who asks.
type callParams struct {
	Version int             `json:"version"`
	Build   string          `json:"build,omitempty"` // the asking binary's (Build)
	Arg     json.RawMessage `json:"arg,omitempty"`
}

// The notifications the process sends.
const (
	methodProgress = "progress" // progressNote: how the answer being made goes
	methodRefused  = "refused"  // refusal: the connection closes without an answer
)

type progressNote struct {
	Message string `json:"message"`
}

type refusal struct {
	Message string `json:"message"`
	Busy    bool   `json:"busy,omitempty"` // as many connections are served as the process takes: ask again soon
}

// The error codes of an answer besides JSON-RPC's own (jsonrpc2.InvalidParams: the request's fault,
// index.ErrInvalid; jsonrpc2.InternalError: a panic while answering, which the process survives).
const (
	codeAnswer     jsonrpc2.Code = -32001 // the error is the answer (an unknown entity), not a failure to give one
	codeOtherBuild jsonrpc2.Code = -32002 // a background process of another build; its build is the data
	codeStopping   jsonrpc2.Code = -32003 // the process is leaving
	codeVersion    jsonrpc2.Code = -32004 // another protocol version
	codeFailed     jsonrpc2.Code = -32005 // the process could not answer (no index): ask elsewhere
)

// writeMessage writes m as one line.
func writeMessage(w io.Writer, m jsonrpc2.Message) error {
	b, err := json.Marshal(m)
	if err != nil {
		return err
	}
	_, err = w.Write(append(b, '\n'))
	return err
}
