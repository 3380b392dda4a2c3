package server

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"

	"go.lsp.dev/jsonrpc2"
	"go.lsp.dev/protocol"

	"github.com/ctxmap/ctxmap/index"
	"github.com/ctxmap/ctxmap/session"
)

const (
	cmdContext  = "ctxmap.context"
	cmdExplore  = "ctxmap.exploreEntity"
	cmdEntities = "ctxmap.entities"
	cmdStatus   = "ctxmap.status"
	cmdReindex  = "ctxmap.reindex"
	// cmdCopyContext runs in the editor (it calls ctxmap.context and fills the clipboard); code lenses
	// name it, the server does not execute it.
	cmdCopyContext = "ctxmap.copyContext"
)

// command runs a custom command on its argument object (nil when none was given).
type command func(s *Server, ctx context.Context, arg json.RawMessage) (any, error)

// commands is the custom commands' dispatch table, in the order initialize announces them, as methods
// is the LSP methods'.
var commands = []namedCommand{
	withArg(cmdContext, contextArgNames, (*Server).contextCommand),
	withArg(cmdExplore, "{name, limit}", (*Server).exploreCommand),
	withArg(cmdEntities, "{top}", (*Server).entitiesCommand),
	{cmdStatus, (*Server).statusCommand},
	{cmdReindex, (*Server).reindexCommand},
	withArg(cmdEntityMap, "{entity, top}", (*Server).entityMapCommand),
}

// namedCommand is a command under the name a client calls it by.
type namedCommand struct {
	name string
	run  command
}

// withArg is the command name whose argument object decodeArg decodes for h; known lists the
// argument's keys.
func withArg[A any](name, known string, h func(s *Server, ctx context.Context, a A) (any, error)) namedCommand {
	return namedCommand{name, func(s *Server, ctx context.Context, raw json.RawMessage) (any, error) {
		var a A
		if err := decodeArg(name, raw, &a, known); err != nil {
			return nil, err
		}
		return h(s, ctx, a)
	}}
}

// commandNames are the commands' names, as initialize announces them.
var commandNames = func() []string {
	names := make([]string, len(commands))
	for i, c := range commands {
		names[i] = c.name
	}
	return names
}()

// executeCommandParams are workspace/executeCommand's parameters, the arguments left undecoded for
// the command.
type executeCommandParams struct {
	Command   string            `json:"command"`
	Arguments []json.RawMessage `json:"arguments"`
}

func (s *Server) executeCommand(ctx context.Context, p executeCommandParams) (any, error) {
	if len(p.Arguments) > 1 {
		return nil, invalidParams("%s takes one argument object, got %d arguments", p.Command, len(p.Arguments))
	}
	var arg json.RawMessage
	if len(p.Arguments) == 1 {
		arg = p.Arguments[0]
	}
	for _, c := range commands {
		if c.name == p.Command {
			return c.run(s, ctx, arg)
		}
	}
	if p.Command == cmdCopyContext {
		return nil, invalidParams("%s runs in the editor: it calls %s and copies the pack", cmdCopyContext, cmdContext)
	}
	return nil, invalidParams("unknown command %q (known: %s)", p.Command, strings.Join(commandNames, ", "))
}

// decodeArg decodes a command's argument object strictly: unknown keys and wrong types are errors
// that name the key. A missing argument decodes as {}.
func decodeArg(command string, raw json.RawMessage, v any, known string) error {
	raw = bytes.TrimSpace(raw)
	if len(raw) == 0 || string(raw) == "null" {
		raw = []byte("{}")
	}
	if raw[0] != '{' {
		return invalidParams("%s: the argument must be an object with %s", command, known)
	}
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.DisallowUnknownFields()
	if err := dec.Decode(v); err != nil {
		return invalidParams("%s: %s (arguments: %s)", command, jsonProblem(err), known)
	}
	return nil
}

// contextArgs are ctxmap.context's arguments: a request as every front end takes it, whose text may
// instead be a selection (uri, range) or the comment or section at the cursor (uri, position).
type contextArgs struct {
	index.Request
	URI      string             `json:"uri"`
	Range    *protocol.Range    `json:"range"`
	Position *protocol.Position `json:"position"`
}

var contextArgNames = "{uri, range} for a selection, {uri, position} for the comment or section at the cursor, or {text}; optional " +
	strings.Join(index.RequestFields()[1:], ", ")

func (s *Server) contextCommand(ctx context.Context, a contextArgs) (any, error) {
	switch {
	case a.URI == "" && (a.Text == "" || a.Range != nil || a.Position != nil):
		return nil, invalidParams("%s: give %s", cmdContext, contextArgNames)
	case a.URI != "" && a.Text != "":
		return nil, invalidParams("%s: give either text or a uri with a range or position, not both", cmdContext)
	case a.URI != "" && a.Range != nil && a.Position != nil:
		return nil, invalidParams("%s: give a range or a position, not both", cmdContext)
	case a.URI != "" && a.Range == nil && a.Position == nil:
		return nil, invalidParams("%s: with a uri, give a range (a selection) or a position (a comment or Markdown section)", cmdContext)
	}
	// a text is asked of the first root, a document's of its own
	sess := s.session()
	if a.URI != "" {
		doc, pl, err := s.text(a.URI)
		if err != nil {
			return nil, invalidParams("%s: %v", cmdContext, err)
		}
		if a.Range != nil {
			if a.Text, err = selection(doc, *a.Range); err != nil {
				return nil, invalidParams("%s: %v", cmdContext, err)
			}
		} else if a.Text, err = blockAt(ctx, pl, doc, *a.Position); err != nil {
			return nil, invalidParams("%s: %v", cmdContext, err)
		}
		sess = pl.sess
	}
	return answer(ctx, cmdContext, session.OpContext, sess, a.Request)
}

// answer answers a command with an operation of sess: a bad argument is the request's fault, and so is
// an invalid answer (the workspace's configuration, which the request left a field to, or an unknown
// entity); a pack or a wait for the first build takes a while, so hover and edits go through meanwhile.
func answer[A, R any](ctx context.Context, command string, op *session.Operation[A, R], sess *session.Session, a A) (R, error) {
	var none R
	if err := op.Check(a); err != nil {
		return none, invalidParams("%s: %v", command, err)
	}
	release(ctx)
	r, err := op.Answer(ctx, sess, a)
	if errors.Is(err, index.ErrInvalid) {
		return none, invalidParams("%s: %v", command, err)
	}
	return r, err
}

// selection is the text of a range of doc.
func selection(doc []byte, r protocol.Range) (string, error) {
	l := newLineIndex(doc)
	start, err := l.offset(r.Start)
	if err != nil {
		return "", fmt.Errorf("range start: %v", err)
	}
	end, err := l.offset(r.End)
	if err != nil {
		return "", fmt.Errorf("range end: %v", err)
	}
	if start > end {
		return "", fmt.Errorf("the range starts after it ends")
	}
	if strings.TrimSpace(string(doc[start:end])) == "" {
		return "", fmt.Errorf("the selection is empty: select the issue's text")
	}
	return string(doc[start:end]), nil
}

// blockAt is the comment block, else the innermost Markdown (or text) section, at a position.
func blockAt(ctx context.Context, pl place, doc []byte, pos protocol.Position) (string, error) {
	rel := pl.rel
	l := newLineIndex(doc)
	if _, err := l.offset(pos); err != nil {
		return "", err
	}
	line := int(pos.Line) + 1
	if rel == "" {
		return "", fmt.Errorf("line %d: the document is outside the workspace: select the text instead", line)
	}
	rec := pl.sess.Snapshot(ctx).Record(rel)
	if rec == nil || rec.File == nil {
		return "", fmt.Errorf("%s is not indexed (unsupported or skipped): select the text instead", rel)
	}
	best := -1
	for i, c := range rec.File.Comments {
		if c.StartLine <= line && line <= c.EndLine && (best < 0 || c.EndLine-c.StartLine < rec.File.Comments[best].EndLine-rec.File.Comments[best].StartLine) {
			best = i
		}
	}
	if best >= 0 {
		return rec.File.Comments[best].Text, nil
	}
	for i, d := range rec.File.Definitions {
		if d.Kind == "section" && d.StartLine <= line && line <= d.EndLine &&
			(best < 0 || d.EndLine-d.StartLine < rec.File.Definitions[best].EndLine-rec.File.Definitions[best].StartLine) {
			best = i
		}
	}
	if best < 0 {
		return "", fmt.Errorf("no comment or Markdown section at line %d of %s: put the cursor in one, or select the text", line, rel)
	}
	d := rec.File.Definitions[best]
	var b strings.Builder
	for n := d.StartLine - 1; n < d.EndLine && n < l.lines(); n++ {
		b.Write(l.line(n))
		b.WriteByte('\n')
	}
	return b.String(), nil
}

// exploreCommand answers the session's explore operation (its argument {name, limit}).
func (s *Server) exploreCommand(ctx context.Context, a session.ExploreArgs) (any, error) {
	return answer(ctx, cmdExplore, session.OpExplore, s.session(), a)
}

// entitySummary is an entity as ctxmap.entities lists it: its lists cut short, with the count of
// its files.
type entitySummary struct {
	index.EntitySummary
	FileCount int `json:"fileCount"`
}

// summaryListed bounds each list of an entity in ctxmap.entities.
const summaryListed = 10

// entitiesCommand answers the session's entities operation (its argument {top}), each entity's lists
// cut short.
func (s *Server) entitiesCommand(ctx context.Context, a session.EntitiesArgs) (any, error) {
	es, err := answer(ctx, cmdEntities, session.OpEntities, s.session(), a)
	if err != nil {
		return nil, err
	}
	out := []entitySummary{}
	for _, e := range es {
		out = append(out, entitySummary{EntitySummary: e.Shortened(summaryListed), FileCount: len(e.Files)})
	}
	return out, nil
}

// statusCommand answers the session's state operation: the index's counts, progress, vectors and
// warnings.
func (s *Server) statusCommand(ctx context.Context, _ json.RawMessage) (any, error) {
	return session.OpState.Answer(ctx, s.session(), session.None{})
}

// reindexCommand answers the reindex operation of every root, one after the other, with the first's
// state.
func (s *Server) reindexCommand(ctx context.Context, _ json.RawMessage) (any, error) {
	// a walk of every file takes a while: let hover and edits through meanwhile
	release(ctx)
	var first session.Status
	for i, sess := range s.sessions() {
		st, err := session.OpReindex.Answer(ctx, sess, session.None{})
		switch {
		case ctx.Err() != nil:
			return nil, protocol.ErrRequestCancelled
		case err != nil:
			return nil, jsonrpc2.NewError(jsonrpc2.InternalError, cmdReindex+": "+err.Error())
		case i == 0:
			first = st
		}
	}
	return first, nil
}
