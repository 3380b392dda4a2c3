package watch

import (
	"sync"

	"github.com/fsnotify/fsnotify"
)

// item is one event or one error, kept in arrival order.
type item struct {
	ev  fsnotify.Event
	err error
}

// queue is unbounded so the goroutine draining fsnotify never waits on the one scanning folders:
// a full kernel queue loses events.
type queue struct {
	mu    sync.Mutex
	items []item
	ready chan struct{} // holds a token while items is not empty
}

func newQueue() *queue {
	return &queue{ready: make(chan struct{}, 1)}
}

func (q *queue) push(it item) {
	q.mu.Lock()
	q.items = append(q.items, it)
	q.mu.Unlock()
	select {
	case q.ready <- struct{}{}:
	default:
	}
}

func (q *queue) take() []item {
	q.mu.Lock()
	defer q.mu.Unlock()
	items := q.items
	q.items = nil
	return items
}

// drain moves fsnotify's events and errors into q until both channels close.
func drain(fsw *fsnotify.Watcher, q *queue) {
	events, errs := fsw.Events, fsw.Errors
	for events != nil || errs != nil {
		select {
		case ev, ok := <-events:
			if !ok {
				events = nil
				continue
			}
			q.push(item{ev: ev})
		case err, ok := <-errs:
			if !ok {
				errs = nil
				continue
			}
			q.push(item{err: err})
		}
	}
}
