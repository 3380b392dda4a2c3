// Package records is the workspace's data as the index keeps it: a file's Record (its parse, its entity
// Contribution, its Chunks and their ChunkRefs), the definitions it names (SymbolRef) and their Names,
// the reference Graph over the files, the code's message-like Literals, and the classes of a file (test,
// example, vendored, declaration, code). The store reads and writes it; ranking, outlines and the
// index read it; it knows nothing of any of them.
package records
