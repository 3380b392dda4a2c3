package session

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strings"

	"github.com/ctxmap/ctxmap/index"
)

// The operations a front end asks of a session, each declared once: its name, what it does, its
// argument (checked the same whoever asks), its answer and what it gets while the first build runs.
// The socket serves them by name (serve.go); the command line asks them there (Operation.Ask), or answers
// them from an index it opened itself (Operation.Own); the language server and the MCP server answer
// them with their session (Operation.Answer). One handler answers each, whoever asks.

// Readiness is what a request gets while the session's first build runs.
type Readiness int

const (
	// AtOnce: answered at once from what the session has (its state, or a stop).
	AtOnce Readiness = iota
	// PartialPack: a pack at once, made from the files the text matches and marked partial (see
	// Partial); once the build is in, from the whole index, the changes queued before it and the
	// vectors in. A session in memory, for tests and tools, waits for the build instead.
	PartialPack
	// WholeIndex: answered once the first build is in (a socket's asker hears how far it is meanwhile),
	// from the index with the changes queued before it.
	WholeIndex
)

// String is the readiness as the README's table names it.
func (r Readiness) String() string {
	switch r {
	case AtOnce:
		return "at once"
	case PartialPack:
		return "a partial pack while the first build runs"
	default:
		return "waits for the first build"
	}
}

// Operation is one question a front end asks of a session: A is its argument, R its answer.
type Operation[A, R any] struct {
	Name  string // the socket's method
	Doc   string
	Ready Readiness
	check func(A) error // nil: any argument is answered
	do    func(ctx context.Context, src Source, a A) (R, error)
}

// Source is what an operation answers from: a session, or an index a command opened and built for
// itself.
type Source interface {
	index.Source // where its packs are made
	// Read calls f with the whole index; what a workspace with nothing to read answers instead
	Read(ctx context.Context, f func(ix *index.Index) error) error
}

// sessionSource is a session as a Source: its packs made as a one-shot process makes them (see
// sessionPacks), its reads settled.
type sessionSource struct {
	sessionPacks
}

func (src sessionSource) Read(ctx context.Context, f func(ix *index.Index) error) error {
	return src.s.readWhole(ctx, f)
}

// ownSource is an index a command opened and built for itself, as a Source.
type ownSource struct {
	index.Own
}

func (src ownSource) Read(_ context.Context, f func(ix *index.Index) error) error {
	return f(src.Index)
}

// onSession is a handler that needs a session (a refresh, the process's status, a stop): an index a
// command opened for itself has none of that to answer.
func onSession[A, R any](do func(ctx context.Context, s *Session, a A) (R, error)) func(context.Context, Source, A) (R, error) {
	return func(ctx context.Context, src Source, a A) (R, error) {
		ss, ok := src.(sessionSource)
		if !ok {
			var none R
			return none, errors.New("only a running process answers this")
		}
		return do(ctx, ss.s, a)
	}
}

// fromIndex is a handler that reads the whole index for its answer.
func fromIndex[A, R any](f func(ix *index.Index, a A) (R, error)) func(context.Context, Source, A) (R, error) {
	return func(ctx context.Context, src Source, a A) (r R, err error) {
		err = src.Read(ctx, func(ix *index.Index) (err error) {
			r, err = f(ix, a)
			return err
		})
		return r, err
	}
}

// named refuses an empty name, saying what to give instead.
func named(name, give string) error {
	if strings.TrimSpace(name) == "" {
		return errors.New("name is empty: give " + give)
	}
	return nil
}

// Check refuses an argument the operation cannot answer, as index.ErrInvalid.
func (o *Operation[A, R]) Check(a A) error {
	if o.check == nil {
		return nil
	}
	err := o.check(a)
	if err != nil && !errors.Is(err, index.ErrInvalid) {
		return fmt.Errorf("%w: %w", index.ErrInvalid, err)
	}
	return err
}

// Answer answers a with s: the argument checked, then as the operation's readiness says.
func (o *Operation[A, R]) Answer(ctx context.Context, s *Session, a A) (R, error) {
	var none R
	if err := o.Check(a); err != nil {
		return none, err
	}
	if o.Ready == WholeIndex {
		// a background process started for this question has no partial pack to make before it builds
		s.first.asked()
		if err := s.WaitReady(ctx); err != nil {
			return none, err
		}
	}
	return o.do(ctx, sessionSource{sessionPacks{s: s, oneShot: true}}, a)
}

// Own answers a from an index the calling process opened and built for itself (a command with no
// process to ask): the argument checked, then the same handler as a session's.
func (o *Operation[A, R]) Own(ctx context.Context, ix *index.Index, a A) (R, error) {
	var none R
	if err := o.Check(a); err != nil {
		return none, err
	}
	return o.do(ctx, ownSource{index.Own{Index: ix}}, a)
}

// Ask hands a to the process that serves root, over its socket, and returns its answer; ErrNoSession
// when none answers (or none can): the caller then answers in its own process. It never starts one.
func (o *Operation[A, R]) Ask(ctx context.Context, root string, a A) (R, error) {
	var r R
	path, err := SocketPath(root)
	if err != nil {
		return r, ErrNoSession
	}
	return o.askAt(ctx, path, a)
}

// askAt is Ask on the socket at path.
func (o *Operation[A, R]) askAt(ctx context.Context, path string, a A) (R, error) {
	var r R
	raw, err := askAt(ctx, path, o.Name, a)
	if err != nil {
		return r, err
	}
	if err := json.Unmarshal(raw, &r); err != nil {
		return r, fmt.Errorf("the running process's answer to %s: %w", o.Name, err)
	}
	return r, nil
}

// serve answers the socket's argument, decoded strictly: a field the argument does not have is the
// request's fault.
func (o *Operation[A, R]) serve(ctx context.Context, s *Session, raw json.RawMessage) (any, error) {
	var a A
	if len(raw) > 0 && string(raw) != "null" {
		d := json.NewDecoder(bytes.NewReader(raw))
		d.DisallowUnknownFields()
		if err := d.Decode(&a); err != nil {
			return nil, fmt.Errorf("%w: %s's argument: %v", index.ErrInvalid, o.Name, err)
		}
	}
	return o.Answer(ctx, s, a)
}

func (o *Operation[A, R]) describe() (name, doc string, ready Readiness) {
	return o.Name, o.Doc, o.Ready
}

// served is an operation as the socket serves it, whatever its types.
type served interface {
	serve(ctx context.Context, s *Session, raw json.RawMessage) (any, error)
	describe() (name, doc string, ready Readiness)
}

// EntitiesArgs ask for the workspace's top entities.
type EntitiesArgs struct {
	Top int `json:"top,omitempty"`
}

// ExploreArgs ask for the chunks about one entity.
type ExploreArgs struct {
	Name  string `json:"name" jsonschema:"an entity of the project, as get_context or a previous explore_entity names it (RULE, QUALITY_PROFILE); case and spaces do not matter"`
	Limit int    `json:"limit,omitempty" jsonschema:"how many chunks (default 20)"`
}

// SymbolArgs ask for the definitions of a symbol.
type SymbolArgs struct {
	Name string `json:"name" jsonschema:"a symbol name: RuleIndex, search, RuleIndex.search; exact first, then case-insensitive, then fuzzy"`
	Kind string `json:"kind,omitempty" jsonschema:"only definitions of this kind; type is any type (class, struct, interface, trait, enum), function any function (method, constructor)"`
}

// PictureArgs ask for the entity map, laid out: the top entities, or the neighbourhood of one.
type PictureArgs struct {
	Top  int    `json:"top,omitempty"`
	Name string `json:"name,omitempty"` // the entity in focus
}

// None is the argument of an operation that takes none.
type None struct{}

// MaxDefinitions keeps the definitions of a symbol short: an agent pays for every line of them.
const MaxDefinitions = 25

// The operations. A new one is a row here; the front ends that offer it call its Answer, Ask or Own.
var (
	OpContext = declare(&Operation[index.Request, *index.Pack]{
		Name:  "context",
		Doc:   "the context pack of a text, as the user typed the request (the session resolves it with its configuration)",
		Ready: PartialPack,
		check: index.Request.Validate,
		do: func(ctx context.Context, src Source, req index.Request) (*index.Pack, error) {
			res, err := index.Answer(ctx, src, req)
			if err != nil {
				return nil, err
			}
			if res.Pack == nil {
				return nil, errors.New("no pack was made")
			}
			return res.Pack, nil
		},
	})
	OpEntities = declare(&Operation[EntitiesArgs, []index.EntitySummary]{
		Name:  "entities",
		Doc:   "the workspace's top entities by importance",
		Ready: WholeIndex,
		check: func(a EntitiesArgs) error { return index.CheckLimit("top", a.Top) },
		do: fromIndex(func(ix *index.Index, a EntitiesArgs) ([]index.EntitySummary, error) {
			return ix.Snapshot().TopEntities(a.Top), nil
		}),
	})
	OpExplore = declare(&Operation[ExploreArgs, *index.Exploration]{
		Name:  "explore",
		Doc:   "the chunks of code about one entity, with the entities of their files",
		Ready: WholeIndex,
		check: func(a ExploreArgs) error {
			if err := named(a.Name, `the entity's name, e.g. {"name": "RULE"}`); err != nil {
				return err
			}
			return index.CheckLimit("limit", a.Limit)
		},
		do: fromIndex(func(ix *index.Index, a ExploreArgs) (*index.Exploration, error) {
			return ix.Explore(a.Name, a.Limit)
		}),
	})
	OpSymbols = declare(&Operation[SymbolArgs, []index.Symbol]{
		Name:  "symbols",
		Doc:   fmt.Sprintf("the definitions of a symbol by name, at most %d: exact first, then case-insensitive, then fuzzy", MaxDefinitions),
		Ready: WholeIndex,
		check: func(a SymbolArgs) error {
			if err := named(a.Name, "a symbol name such as RuleIndex or search"); err != nil {
				return err
			}
			return index.CheckKind(a.Kind)
		},
		do: fromIndex(func(ix *index.Index, a SymbolArgs) ([]index.Symbol, error) {
			return ix.Snapshot().FindSymbols(a.Name, a.Kind, MaxDefinitions), nil
		}),
	})
	OpOutline = declare(&Operation[index.OutlineRequest, *index.Outline]{
		Name:  "outline",
		Doc:   "the ranked outline of the workspace, centred on a text when one is given (ctxmap map)",
		Ready: WholeIndex,
		do: func(ctx context.Context, src Source, req index.OutlineRequest) (*index.Outline, error) {
			// a map centred on a text: its pack answered as every pack is
			if err := req.Centre(ctx, src); err != nil {
				return nil, finalError{err}
			}
			return fromIndex(func(ix *index.Index, req index.OutlineRequest) (*index.Outline, error) {
				return ix.Outline(ctx, req)
			})(ctx, src, req)
		},
	})
	OpPicture = declare(&Operation[PictureArgs, *index.Picture]{
		Name:  "picture",
		Doc:   "the entity map laid out: the top entities, or the neighbourhood of one (ctxmap map --format svg)",
		Ready: WholeIndex,
		check: func(a PictureArgs) error { return index.CheckLimit("top", a.Top) },
		do: fromIndex(func(ix *index.Index, a PictureArgs) (*index.Picture, error) {
			return ix.EntityPicture(a.Top, a.Name)
		}),
	})
	OpRefresh = declare(&Operation[None, index.Stats]{
		Name:  "refresh",
		Doc:   "the index brought up to date with the disk, and its stats (ctxmap index)",
		Ready: WholeIndex,
		do:    onSession(func(ctx context.Context, s *Session, _ None) (index.Stats, error) { return s.refresh(ctx) }),
	})
	OpReindex = declare(&Operation[None, Status]{
		Name:  "reindex",
		Doc:   "the whole workspace walked again, and the session's state once that is in (the language server's ctxmap.reindex)",
		Ready: WholeIndex,
		do: onSession(func(ctx context.Context, s *Session, _ None) (Status, error) {
			if err := s.rescanned(ctx); err != nil {
				return Status{}, err
			}
			st := s.Status()
			if st.Error != "" {
				return st, errors.New(st.Error)
			}
			return st, nil
		}),
	})
	OpState = declare(&Operation[None, Status]{
		Name:  "state",
		Doc:   "the session's index: ready or how far built, its counts, vectors and warnings (the language server's ctxmap.status)",
		Ready: AtOnce,
		do:    onSession(func(_ context.Context, s *Session, _ None) (Status, error) { return s.Status(), nil }),
	})
	OpStatus = declare(&Operation[None, Process]{
		Name:  "status",
		Doc:   "the process, as ctxmap daemon --status lists it",
		Ready: AtOnce,
		do:    onSession(func(_ context.Context, s *Session, _ None) (Process, error) { return s.process(), nil }),
	})
	OpStop = declare(&Operation[None, Process]{
		Name:  "stop",
		Doc:   "a background process leaves (ctxmap daemon --stop); another process refuses",
		Ready: AtOnce,
		do: onSession(func(_ context.Context, s *Session, _ None) (Process, error) {
			if s.opts.Stop == nil {
				return Process{}, finalError{errors.New("not a background process: it stops with its editor or agent")}
			}
			s.leave()
			return s.process(), nil
		}),
	})
)

// operations are the ones the socket serves, by name: each row made one through declare.
var operations = map[string]served{}

// declare makes o an operation the socket serves.
func declare[A, R any](o *Operation[A, R]) *Operation[A, R] {
	if operations[o.Name] != nil {
		panic("two operations named " + o.Name) // a row of this file: a bug
	}
	operations[o.Name] = o
	return o
}

// OperationDoc is an operation as the README's table lists it.
type OperationDoc struct {
	Name, Doc string
	Ready     Readiness
}

// Operations lists the operations a session answers, by name.
func Operations() []OperationDoc {
	var docs []OperationDoc
	for _, o := range operations {
		name, doc, ready := o.describe()
		docs = append(docs, OperationDoc{name, doc, ready})
	}
	slices.SortFunc(docs, func(a, b OperationDoc) int { return strings.Compare(a.Name, b.Name) })
	return docs
}

// readWhole reads the whole index: what a workspace with nothing to read answers instead, else f's
// error as the answer (an unknown entity), not the process's failure to give one.
func (s *Session) readWhole(ctx context.Context, f func(ix *index.Index) error) error {
	if err := s.empty(); err != nil {
		return err
	}
	var failed error
	err := s.Read(ctx, func(ix *index.Index) error {
		failed = f(ix)
		return nil
	})
	if err != nil {
		return err
	}
	if failed != nil && !errors.As(failed, new(finalError)) {
		return finalError{failed}
	}
	return failed
}
