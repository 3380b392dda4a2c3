// Package index is the workspace engine: it lists, parses and indexes the files of one root, keeps the
// entity map, the lexical and vector stores current as files change, and answers queries from immutable
// snapshots. The server, the CLI and the agent tools all go through it.
//
// Its files are named by their job. The writer: index.go (the Index and its Options), open.go (Open:
// configuration, cache, stores), config.go (the configuration, internal/config's, offered here),
// build.go (Build: the whole
// workspace), update.go (Update, and the plan and apply every change takes), load.go (reading and
// parsing files, a batch per core), write.go (a batch into the records and the stores), vectors.go (the
// snapshot's chunks for the vector store), overlay.go (editors' unsaved buffers), root.go (the
// workspace's paths), save.go (the state file written), state.go (the state file read back),
// cache.go (the cache folder and its locks), exchange.go (Export, Import), verify.go. What readers get:
// snapshot.go (an immutable Snapshot), stats.go (what it holds, counted), view.go (what ranking reads of
// it), and the answers: request.go (the one Request every front end takes, checked and resolved),
// answer.go (Answer, the one way to a pack), context.go (a pack), packjson.go (its JSON for agents),
// partial.go (partial packs while the index is not whole), explore.go, symbols.go, describe.go,
// entities.go, outline.go.
package index
