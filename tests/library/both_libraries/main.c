/* Both libraries in one program: each sees the same GPUs and rejects a
 * bad shape with its own message (the last error is per library). Exits 0
 * when both answer consistently. */
#include <stdio.h>
#include <string.h>

#include "kopt_w4a16.h"
#include "kopt_w8a16.h"

int main(void) {
  const int gpus = kopt_w4a16_devices();
  if (kopt_w8a16_devices() != gpus) return 1;
  kopt_w4a16_weights* w4 = NULL;
  kopt_w8a16_weights* w8 = NULL;
  const char one = 0;
  /* 1.3's dequantiser links from C and refuses a null handle in one line. */
  if (kopt_w4a16_dequantize(NULL, NULL, KOPT_W4A16_BF16, NULL) != KOPT_W4A16_INVALID_ARGUMENT ||
      strcmp(kopt_w4a16_last_error(), "null pointer") != 0)
    return 2;
  if (kopt_w4a16_create(&one, &one, &one, 3, 8, 2, NULL, &w4) != KOPT_W4A16_INVALID_ARGUMENT) return 3;
  if (kopt_w8a16_create(&one, &one, 0, 8, NULL, &w8) != KOPT_W8A16_INVALID_ARGUMENT) return 4;
  if (!strstr(kopt_w4a16_last_error(), "G=2") || strstr(kopt_w8a16_last_error(), "G=")) return 5;
  /* x off a 16-byte boundary is refused in one line (the kernels read x 16
   * bytes at a time where K is a multiple of 8; the read would fault). The
   * check reads only the handle's K, before any GPU work: a zeroed stand-in
   * handle (K = 0) serves. */
  static _Alignas(16) float rows[64];
  const char* x_bytes = (const char*)rows;
  if (kopt_w8a16_gemm((kopt_w8a16_weights*)rows, x_bytes + 2, KOPT_W8A16_F16, 1, rows,
                      KOPT_W8A16_F32, NULL) != KOPT_W8A16_INVALID_ARGUMENT ||
      !strstr(kopt_w8a16_last_error(), "x must start on a 16-byte boundary") ||
      kopt_w4a16_gemv((kopt_w4a16_weights*)rows, x_bytes + 8, rows, NULL) !=
          KOPT_W4A16_INVALID_ARGUMENT)
    return 6;
  printf("%d GPU(s); %s | %s\n", gpus, kopt_w4a16_last_error(), kopt_w8a16_last_error());
  return 0;
}
