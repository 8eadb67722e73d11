#include "problems/w8a16_batch/w8a16_batch.h"

#include <algorithm>

#include "problems/common/row_batch.h"
#include "problems/w8a16_gemv/w8a16_gemv.h"

namespace kopt {
namespace embedded {
extern const char* const kW8a16BatchSeedRows;
extern const char* const kW8a16BatchSeedLanes;
extern const char* const kW8a16BatchTask;
extern const char* const kW8a16BatchDeviceReference;
}  // namespace embedded

namespace w8a16_batch {

namespace {

class W8a16Batch : public RowBatchProblem {
 public:
  W8a16Batch() : RowBatchProblem(w8a16::kId) {}
  std::string id() const override { return kId; }
  std::string summary() const override {
    return "W8A16 at decode batches: fp16 X (M rows of K) times the int8 weights of w8a16_gemv "
           "(N outputs) -> fp32 Y (M rows of N), the weights read once for all rows";
  }
  std::string shape_syntax() const override { return "MxKxN (M rows, 1 to 64)"; }

  std::string device_reference() const override { return embedded::kW8a16BatchDeviceReference; }
  const std::vector<Seed>& seeds() const override {
    static const std::vector<Seed> seeds = {{"rows", embedded::kW8a16BatchSeedRows},
                                            {"lanes", embedded::kW8a16BatchSeedLanes}};
    return seeds;
  }
  std::string task_prompt() const override { return embedded::kW8a16BatchTask; }

  // Served by kopt_w8a16_gemm, which builds the lanes seed itself
  // (kernels/w8a16_gemv/kopt_w8a16_batched.hip); `kopt export` of tuned
  // batched kernels into a library of their own is not built.
  LibrarySpec library() const override {
    LibrarySpec spec;
    spec.name = "kopt_w8a16_batch";
    spec.out_dir = "kernels/w8a16_batch/generated";
    spec.rule_variables = {"K", "N"};
    spec.generic_variants = {{"generic_lanes", "lanes", {}, "the lanes seed's defaults"},
                             {"generic_rows", "rows", {}, "any shape"}};
    return spec;
  }

 protected:
  void fill_row(ProblemData* row, size_t dataset, uint64_t seed) const override {
    w8a16::fill_x(row, static_cast<w8a16::Dataset>(std::min<size_t>(dataset, w8a16::kExtremes)),
                  seed);
  }
  std::vector<double> reference_rows(const Shape& gemv, const std::vector<uint8_t>& weights,
                                     const uint16_t* x_rows, int64_t rows) const override {
    return w8a16::reference_rows(gemv, weights, x_rows, rows);
  }
};

}  // namespace

Shape shape(int64_t M, int64_t K, int64_t N) { return Shape{kId, {{"K", K}, {"N", N}, {"M", M}}}; }

std::unique_ptr<Problem> make_problem() { return std::make_unique<W8a16Batch>(); }

}  // namespace w8a16_batch
}  // namespace kopt
