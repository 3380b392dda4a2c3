package index

// The git history the entity map and ranking read.

import (
	"context"
	"os/exec"
	"strings"

	"github.com/ctxmap/ctxmap/internal/history"
)

// readHistory re-reads git history only when HEAD moved; an error comes with the old log or an
// unavailable one.
func (ix *Index) readHistory(ctx context.Context, old *history.Log) (*history.Log, error) {
	limit := ix.cfg.historyLimit()
	if limit < 0 {
		return sameOrNew(old, &history.Log{Reason: "disabled in the configuration"}), nil
	}
	if old != nil && old.Available && old.Head != "" && old.Head == gitHead(ctx, ix.root) {
		return old, nil
	}
	h, err := history.Read(ctx, ix.root, limit)
	if err != nil {
		return sameOrNew(old, &history.Log{Reason: err.Error()}), err
	}
	return sameOrNew(old, h), nil
}

// sameOrNew keeps the old log when the new one is as unavailable, for the same reason: the snapshot
// derived from it stays valid.
func sameOrNew(old, h *history.Log) *history.Log {
	if old != nil && !old.Available && !h.Available && old.Reason == h.Reason {
		return old
	}
	return h
}

func gitHead(ctx context.Context, root string) string {
	out, err := exec.CommandContext(ctx, "git", "-C", root, "rev-parse", "HEAD").Output()
	if err != nil {
		return ""
	}
	return strings.TrimSpace(string(out))
}
