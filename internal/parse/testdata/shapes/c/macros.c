/* A C library's tests and exports, written with its macros. */
#include "ring.h"

TEST_IMPL(ring_push) {
  return 0;
}

BENCHMARK_IMPL(ring_loop) {
  return 0;
}

TEST_END
TEST_BEGIN(test_ring_divide) {
  return;
}
TEST_END

RING_EXTERN int ring_size(const ring_t* r);
RING_EXTERN int RING_CALL ring_push(ring_t* r, int v) { return 0; }
int RING_CALL ring_pop(ring_t* r) { return 0; }
static RING_INLINE int ring_peek(const ring_t* r) { return 0; }

enum ring_state {
  RING_EMPTY,
  RING_FULL
};

FILE *ring_open(const char* path) { return 0; }
DWORD ring_count;

int ring_apply(ring_t* r, long v) {
  GET_VALUE(prev)
  if (prev != v) {
    return 1;
  }
  return 0;
}
