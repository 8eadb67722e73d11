// The library's batched kernels: the w4a16_batch problem's `klanes` seed
// (seeds/w4a16_batch/klanes.hip, included as it is) built for each
// M bucket and both weight layouts it reads, and their table.
#include "kopt_launch.h"
#include "kopt_prelude.h"
#include "kopt_w4a16_batched.h"

#define KOPT_KLANES_ROWS 4
#define KOPT_KLANES_LAYOUT 0
#include "kopt_w4a16_batched_instance.inc"
#define KOPT_KLANES_ROWS 8
#define KOPT_KLANES_LAYOUT 0
#include "kopt_w4a16_batched_instance.inc"
#define KOPT_KLANES_ROWS 16
#define KOPT_KLANES_LAYOUT 0
#include "kopt_w4a16_batched_instance.inc"
#define KOPT_KLANES_ROWS 4
#define KOPT_KLANES_LAYOUT 1
#include "kopt_w4a16_batched_instance.inc"
#define KOPT_KLANES_ROWS 8
#define KOPT_KLANES_LAYOUT 1
#include "kopt_w4a16_batched_instance.inc"
#define KOPT_KLANES_ROWS 16
#define KOPT_KLANES_LAYOUT 1
#include "kopt_w4a16_batched_instance.inc"

#if KOPT_HOST_PASS
const KoptBatchedKernel kKoptBatchedKernels[] = {
    {kopt_klanes_m4_0_build::kParams, kopt_klanes_m4_0_build::call, kopt_klanes_m4_0_build::lay_out},
    {kopt_klanes_m8_0_build::kParams, kopt_klanes_m8_0_build::call, kopt_klanes_m8_0_build::lay_out},
    {kopt_klanes_m16_0_build::kParams, kopt_klanes_m16_0_build::call, kopt_klanes_m16_0_build::lay_out},
    {kopt_klanes_m4_1_build::kParams, kopt_klanes_m4_1_build::call, kopt_klanes_m4_1_build::lay_out},
    {kopt_klanes_m8_1_build::kParams, kopt_klanes_m8_1_build::call, kopt_klanes_m8_1_build::lay_out},
    {kopt_klanes_m16_1_build::kParams, kopt_klanes_m16_1_build::call, kopt_klanes_m16_1_build::lay_out},
    {{0, 0}, nullptr, nullptr}};

const KoptBatchedKernel* kopt_batched_kernel(long long rows, long long layout) {
  for (const KoptBatchedKernel* k = kKoptBatchedKernels; k->call; ++k)
    if (k->params.layout == layout && k->params.rows >= rows) return k;
  return nullptr;
}
#endif
