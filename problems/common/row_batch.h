// A GEMV problem at decode batches: Y = X · W for M rows of activations
// (continuous batching, speculative decoding), X fp16 [M][K], the GEMV
// problem's canonical weights, Y fp32 [M][N]. Its shapes are the GEMV's with
// M in front ("8x7168x9216"); kernels receive the GEMV's variables, then M.
// What a batched problem adds to its GEMV is written here once: the shape
// grammar, the sizes, the data (each row of x its own draw), the suites at
// each decode batch. Each batched problem (problems/w4a16_batch,
// problems/w8a16_batch) supplies its id, seeds, task, trusted device
// reference and library, and how its GEMV fills a row of x and computes a
// block of rows.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "sandbox/contract/problem.h"

namespace kopt {

class RowBatchProblem : public Problem {
 public:
  // The most rows a shape may have.
  static constexpr int64_t kMaxRows = 64;

  explicit RowBatchProblem(std::string gemv_id) : gemv_id_(std::move(gemv_id)) {}

  // The shape of M rows over the GEMV shape `gemv`.
  Shape batch_shape(int64_t M, const Shape& gemv) const;
  // The GEMV shape that has the same weights.
  Shape gemv_shape(const Shape& s) const;

  std::vector<std::string> variables() const override;
  Status parse_shape(const std::string& text, const ShapeDefaults& defaults,
                     Shape* out) const override;
  Status validate(const Shape& s) const override;
  std::string shape_name(const Shape& s) const override;
  int64_t x_elements(const Shape& s) const override;
  int64_t y_elements(const Shape& s) const override;
  int64_t weight_bytes(const Shape& s) const override;
  // The weights once (as the GEMV moves them), and every row of x and y.
  int64_t bytes_moved(const Shape& s) const override;
  std::vector<DatasetSpec> datasets() const override;
  // The weights of the GEMV's input set; each row of x drawn from the same
  // set with its own seed (so rows differ, and one-hot rows are hot at
  // different k).
  ProblemData generate(const Shape& s, size_t dataset, uint64_t seed) const override;
  std::vector<double> reference(const ProblemData& d) const override;
  std::string device_prelude() const override;
  // The GEMV's suites at each decode batch of 2, 4, 8 and 16 rows, one suite
  // per M ("contest-m8"), and the contest's at all four ("contest-batch").
  std::vector<Suite> suites(const ShapeDefaults& defaults) const override;

 protected:
  const Problem& gemv() const;
  // x of one input set for `row->shape` (a GEMV shape: K values),
  // deterministic in the seed.
  virtual void fill_row(ProblemData* row, size_t dataset, uint64_t seed) const = 0;
  // y (rows × N, row-major) in fp64 for `rows` rows of x (rows × K fp16
  // bits, row-major) and the canonical weights of the GEMV shape `gemv`.
  virtual std::vector<double> reference_rows(const Shape& gemv, const std::vector<uint8_t>& weights,
                                             const uint16_t* x_rows, int64_t rows) const = 0;

 private:
  Status validate_dims(const Shape& s) const;
  std::string gemv_id_;
};

}  // namespace kopt
