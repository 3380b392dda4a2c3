package index

import "context"

// A Source is where a context pack is made: an index a process opened for itself (Own), a session's
// (the language server's, the MCP server's, a background process's), or a partial one (Partial).
type Source interface {
	// Config is the configuration a request is resolved with: the workspace's, with the editor's
	// settings over it.
	Config() Config
	// Ready is the index that answers req, once it can; done is called when the pack is made (or
	// failed) and says whether a record was found damaged since the files were last read again.
	Ready(ctx context.Context, req Resolved) (ix *Index, done func() (reread bool), err error)
	// ReadAgain reads the files of the damaged records again.
	ReadAgain(ctx context.Context) error
}

// Answer is the one way a context request is answered, whoever asks (the command line, the language
// server, the MCP server, the map centred on a text, the benchmark): resolved once, here, with the
// configuration of where it is answered, then made by Index.Context. A record found damaged while the
// pack is made (and said) counts as its file without content: the file is read again and the pack
// made again, once.
func Answer(ctx context.Context, src Source, req Request) (*Result, error) {
	resolved, err := req.Resolve(src.Config())
	if err != nil {
		return nil, err
	}
	for again := false; ; again = true {
		ix, done, err := src.Ready(ctx, resolved)
		if err != nil {
			return nil, err
		}
		res, err := ix.Context(ctx, resolved)
		reread := done()
		if err != nil || !reread || again {
			return res, err
		}
		if err := src.ReadAgain(ctx); err != nil {
			return res, err
		}
	}
}

// Own is an index a process opened, and built, for itself, as a Source: its damage is the build's or
// the pack's, read again by building again.
type Own struct{ *Index }

// Ready is the index itself.
func (o Own) Ready(context.Context, Resolved) (*Index, func() bool, error) {
	return o.Index, func() bool { return o.DamagedRecords() > 0 }, nil
}

// ReadAgain builds the index again: the files of damaged records are read again.
func (o Own) ReadAgain(ctx context.Context) error {
	_, err := o.Build(ctx, nil)
	return err
}
