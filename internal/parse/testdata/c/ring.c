#include <stdio.h>
#include <stdlib.h>
#include "ring.h"

#define RING_CAPACITY 128

/* A fixed-size ring buffer of integers. */
struct ring {
    int items[RING_CAPACITY];
    size_t head;
    size_t len;
};

typedef struct ring ring_t;

enum ring_status { RING_OK, RING_FULL, RING_EMPTY };

static int dropped = 0;

/*
 * Creates an empty ring on the heap.
 */
ring_t *ring_new(void)
{
    ring_t *r = calloc(1, sizeof(ring_t));
    if (r == NULL) {
        fprintf(stderr, "ring_new: out of memory for %zu bytes\n", sizeof(ring_t));
    }
    return r;
}

static int ring_full(const ring_t *r)
{
    return r->len == RING_CAPACITY;
}

// Appends v, dropping it when the ring is full.
enum ring_status ring_push(ring_t *r, int v)
{
    if (ring_full(r)) {
        dropped++;
        /* TODO: report drops through a callback */
        return RING_FULL;
    }
    r->items[(r->head + r->len) % RING_CAPACITY] = v;
    r->len++;
    return RING_OK;
}

int ring_pop(ring_t *r, int *out)
{
    if (r->len == 0) {
        return -1;
    }
    *out = r->items[r->head];
    r->head = (r->head + 1) % RING_CAPACITY;
    r->len--;
    return 0;
}
