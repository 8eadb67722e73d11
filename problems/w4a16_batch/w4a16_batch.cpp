#include "problems/w4a16_batch/w4a16_batch.h"

#include <algorithm>

#include "problems/common/row_batch.h"
#include "problems/w4a16_gemv/w4a16_gemv.h"

namespace kopt {
namespace embedded {
extern const char* const kW4a16BatchSeedRows;
extern const char* const kW4a16BatchSeedTile;
extern const char* const kW4a16BatchSeedKlanes;
extern const char* const kW4a16BatchSeedNcols;
extern const char* const kW4a16BatchSeedXrows;
extern const char* const kW4a16BatchTask;
extern const char* const kW4a16BatchDeviceReference;
}  // namespace embedded

namespace w4a16_batch {

namespace {

class W4a16Batch : public RowBatchProblem {
 public:
  W4a16Batch() : RowBatchProblem(w4a16::kId) {}
  std::string id() const override { return kId; }
  std::string summary() const override {
    return "W4A16 at decode batches: fp16 X (M rows of K) times the int4 weights of w4a16_gemv "
           "(N outputs) -> fp32 Y (M rows of N), the weights read once for all rows";
  }
  std::string shape_syntax() const override {
    return "MxKxN or MxKxN/gG (M rows, 1 to 64; G defaults to --group)";
  }

  std::string device_reference() const override { return embedded::kW4a16BatchDeviceReference; }

  const std::vector<Seed>& seeds() const override {
    static const std::vector<Seed> seeds = {{"rows", embedded::kW4a16BatchSeedRows},
                                            {"tile", embedded::kW4a16BatchSeedTile},
                                            {"klanes", embedded::kW4a16BatchSeedKlanes},
                                            {"ncols", embedded::kW4a16BatchSeedNcols},
                                            {"xrows", embedded::kW4a16BatchSeedXrows}};
    return seeds;
  }
  std::string task_prompt() const override { return embedded::kW4a16BatchTask; }

 protected:
  void fill_row(ProblemData* row, size_t dataset, uint64_t seed) const override {
    w4a16::fill_x(row, static_cast<w4a16::Dataset>(std::min<size_t>(dataset, 3)), seed);
  }
  std::vector<double> reference_rows(const Shape& gemv, const std::vector<uint8_t>& weights,
                                     const uint16_t* x_rows, int64_t rows) const override {
    return w4a16::reference_rows(gemv, weights, x_rows, rows);
  }

 public:
  // Served today by kopt_w4a16_gemm, which builds the klanes and xrows seeds
  // themselves (kernels/w4a16_gemv/kopt_w4a16_batched.hip); `kopt export` of tuned
  // batched kernels per (M, K, N) into a library of their own is not built.
  LibrarySpec library() const override {
    LibrarySpec spec;
    spec.name = "kopt_w4a16_batch";
    spec.out_dir = "kernels/w4a16_batch/generated";
    spec.rule_variables = {"K", "N"};
    spec.generic_variants = {{"generic_tile", "tile", {}, "the tile seed's defaults"},
                             {"generic_rows", "rows", {}, "any shape"}};
    return spec;
  }
};

}  // namespace

Shape shape(int64_t M, int64_t K, int64_t N, int64_t G) {
  return Shape{kId, {{"K", K}, {"N", N}, {"G", G}, {"M", M}}};
}

std::unique_ptr<Problem> make_problem() { return std::make_unique<W4a16Batch>(); }

}  // namespace w4a16_batch
}  // namespace kopt
