// Included first by the library's second builds of a generated entry, with
// KOPT_ENTRY_PAIR set to a dtype pair's index in kKoptNativeIo (1: fp16 x to
// fp16 y, 2: bf16 to bf16; cmake/KoptLibrary.cmake, kopt_entry_pairs): the
// entry's C names get the pair's suffix (_io1, _io2: KOPT_ENTRY_NAME,
// kopt_launch.h), and its source's hooks read x and write y in that pair (its
// fp32 partial sums in the workspace stay fp32). Its `call` then takes x and
// y of that pair through the entry's own types.
#pragma once

#define KOPT_ENTRY_PAIR_SUFFIX_(n) _io##n
#define KOPT_ENTRY_PAIR_SUFFIX(n) KOPT_ENTRY_PAIR_SUFFIX_(n)
#define KOPT_ENTRY_SUFFIX KOPT_ENTRY_PAIR_SUFFIX(KOPT_ENTRY_PAIR)

#include "kopt_library.h"

#if KOPT_ENTRY_PAIR == 1
#define KOPT_ENTRY_X 1  // fp16
#define KOPT_ENTRY_Y 1  // fp16
#define KOPT_X_FP16 1
#elif KOPT_ENTRY_PAIR == 2
#define KOPT_ENTRY_X 2  // bf16
#define KOPT_ENTRY_Y 2  // bf16
#define KOPT_X_FP16 0
#else
#error "KOPT_ENTRY_PAIR must be 1 or 2 (pair 0 is the entry itself)"
#endif
#if KOPT_HOST_PASS
static_assert(kKoptNativeIo[KOPT_ENTRY_PAIR].x == KOPT_ENTRY_X &&
                  kKoptNativeIo[KOPT_ENTRY_PAIR].y == KOPT_ENTRY_Y,
              "an entry pair's dtypes are not kKoptNativeIo's");
#endif
#define KOPT_X_PAIR(pair) kopt_library_x_pair(pair, KOPT_ENTRY_X)
#define KOPT_Y_STORE(p, at, v, partial) \
  kopt_library_store(p, at, v, (partial) ? kKoptF32 : KOPT_ENTRY_Y)
